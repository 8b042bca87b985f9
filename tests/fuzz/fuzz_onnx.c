/* fuzz_onnx.c - the ONNX reader on arbitrary bytes (frontend/onnx.c:
 * protobuf decoding, initializers, value_info, nodes), then shape inference
 * and canonicalisation on every model it accepts, where malformed graphs
 * (bad attributes, impossible shapes, constant folding) do their damage. */
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options opt = {0};
	opt.model = "fuzz.onnx";
	opt.weights = WEIGHTS_AUTO;
	struct diag d;
	fuzz_diag(&d, opt.model);
	struct graph *g = onnx_read_mem(opt.model, data, size, &opt, &d);
	fuzz_pipeline(g, &opt, &d);
	return 0;
}
