# frontend/: ONNX (protobuf-c code generated from Debian's onnx.proto).
libdnncc_a_SOURCES += frontend/frontend.h frontend/onnx.c
nodist_libdnncc_a_SOURCES += frontend/onnx.pb-c.c frontend/onnx.pb-c.h
BUILT_SOURCES += frontend/onnx.pb-c.c frontend/onnx.pb-c.h
CLEANFILES += frontend/onnx.pb-c.c frontend/onnx.pb-c.h

frontend/onnx.pb-c.c frontend/onnx.pb-c.h: $(ONNX_PROTO)
	$(AM_V_GEN)$(MKDIR_P) frontend && \
	$(PROTOC_C) -I$(dir $(ONNX_PROTO)) --c_out=frontend $(ONNX_PROTO)
