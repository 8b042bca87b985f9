/* fuzz_caffemodel.c - the .caffemodel reader (frontend/caffe.c: protobuf-c
 * decoding of NetParameter, weights matched to layers by name, blob shapes
 * in both the shape and the legacy num/channels/height/width form, float
 * and double data, BatchNorm's scale factor) on arbitrary bytes, as the
 * weights of one fixed deploy definition that has a layer of every kind
 * that takes weights; the seeds (make_seeds.c) name those layers. */
#include <string.h>

#include "tests/fuzz/fuzz.h"

/* Parameter blobs: conv 2 (weights, bias), bn 3 (mean, variance, factor),
 * scale 2 (gamma, beta), dw 1 (weights, no bias), fc 2 (weights, bias). */
const char fuzz_caffemodel_net[] =
	"name: \"fuzz\"\n"
	"input: \"data\"\n"
	"input_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"
	"layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\"\n"
	"        convolution_param { num_output: 4 kernel_size: 3 } }\n"
	"layer { name: \"bn\" type: \"BatchNorm\" bottom: \"conv\" top: \"conv\" }\n"
	"layer { name: \"scale\" type: \"Scale\" bottom: \"conv\" top: \"conv\"\n"
	"        scale_param { bias_term: true } }\n"
	"layer { name: \"relu\" type: \"ReLU\" bottom: \"conv\" top: \"conv\" }\n"
	"layer { name: \"dw\" type: \"Convolution\" bottom: \"conv\" top: \"dw\"\n"
	"        convolution_param { num_output: 4 kernel_size: 3 pad: 1 group: 4 bias_term: false } }\n"
	"layer { name: \"fc\" type: \"InnerProduct\" bottom: \"dw\" top: \"fc\"\n"
	"        inner_product_param { num_output: 5 } }\n"
	"layer { name: \"prob\" type: \"Softmax\" bottom: \"fc\" top: \"prob\" }\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options opt = {0};
	opt.model = "fuzz.prototxt";
	opt.caffe_weights = "fuzz.caffemodel";
	opt.weights = WEIGHTS_AUTO;
	struct diag d;
	fuzz_diag(&d, opt.model);
	struct graph *g = caffe_read_mem(opt.model, fuzz_caffemodel_net, strlen(fuzz_caffemodel_net),
	                                 data, size, &opt, &d);
	fuzz_pipeline(g, &opt, &d);
	return 0;
}
