# frontend/: ONNX (protobuf-c code generated from Debian's onnx.proto) and Caffe
# (a text-format parser of our own; caffe.proto is the project's schema subset).
libdnncc_a_SOURCES += frontend/frontend.h frontend/onnx.c frontend/prototxt.c frontend/caffe.c
nodist_libdnncc_a_SOURCES += frontend/onnx.pb-c.c frontend/onnx.pb-c.h \
	frontend/caffe.pb-c.c frontend/caffe.pb-c.h
BUILT_SOURCES += frontend/onnx.pb-c.c frontend/onnx.pb-c.h frontend/caffe.pb-c.c frontend/caffe.pb-c.h
CLEANFILES += frontend/onnx.pb-c.c frontend/onnx.pb-c.h frontend/caffe.pb-c.c frontend/caffe.pb-c.h
EXTRA_DIST += frontend/caffe.proto

frontend/onnx.pb-c.c frontend/onnx.pb-c.h: $(ONNX_PROTO)
	$(AM_V_GEN)$(MKDIR_P) frontend && \
	$(PROTOC_C) -I$(dir $(ONNX_PROTO)) --c_out=frontend $(ONNX_PROTO)

frontend/caffe.pb-c.c frontend/caffe.pb-c.h: $(srcdir)/frontend/caffe.proto
	$(AM_V_GEN)$(MKDIR_P) frontend && \
	$(PROTOC_C) -I$(srcdir)/frontend --c_out=frontend $(srcdir)/frontend/caffe.proto

# The generated headers must exist before the objects that include them.
frontend/libdnncc_a-onnx.$(OBJEXT): frontend/onnx.pb-c.h
frontend/libdnncc_a-caffe.$(OBJEXT): frontend/caffe.pb-c.h
