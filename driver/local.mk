bin_PROGRAMS += dnncc
dnncc_SOURCES = driver/main.c
dnncc_LDADD = $(DNNCC_LIBS)
