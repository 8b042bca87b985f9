# tools/: build-time generators (run on the build machine).
noinst_PROGRAMS += tools/embed
tools_embed_SOURCES = tools/embed.c
