/* emit_train_cuda.c - prints the training graph of pass_autodiff as CUDA
 * (NAME.cu, `dnncc --train --target cuda`), with the same header contract as
 * the C code plus an epoch entry point that streams the training data.
 *
 * Device memory is allocated once, at the first call: the parameter blob,
 * its gradients and optimizer state (same offsets as in the C code), one
 * arena holding every activation and activation gradient, the loss
 * accumulator, and two pools of K batches (K = --pool-batches) of inputs and
 * labels. NAME_train_epoch follows rt_pool_schedule (runtime/train_pool.c,
 * copied in): while the compute stream trains on one pool, the copy stream
 * copies the next K batches from pinned host memory into the other with
 * cudaMemcpyAsync; each pool's `copied` event orders training after the
 * copy (cudaStreamWaitEvent), its `consumed` event orders the next copy
 * into it after the training. The loss is summed on the device and copied
 * back only when the caller asks for it. GEMMs are cublasSgemm calls (row-
 * major operands passed as their column-major transposes); bias, the
 * activations, softmax, the losses, the bias gradient and the optimizers
 * are small grid-stride kernels, one thread per element (per row for the
 * softmax family, per column for the bias gradient). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/emit_internal.h"
#include "backend/emit_train.h"

static void dev_expr(const struct train_plan *p, const size_t *act_off, const struct tensor *t,
                     char *buf, size_t size)
{
	t = train_view_root(p, t);
	switch (p->kind[t->index]) {
	case TS_PARAM: snprintf(buf, size, "(d_params + %zu)", p->off[t->index]); break;
	case TS_GRAD: snprintf(buf, size, "(d_grads + %zu)", p->off[t->index]); break;
	case TS_BUF: snprintf(buf, size, "(d_act + %zu)", act_off[t->index]); break;
	case TS_INPUT: snprintf(buf, size, "cur_x"); break;
	case TS_LABELS: snprintf(buf, size, "cur_labels"); break;
	case TS_TARGET: snprintf(buf, size, "cur_labels"); break;
	default: unreachable("tensor without device storage");
	}
}

static void print_node_cuda(FILE *o, const struct train_plan *p, const size_t *act_off,
                            const struct node *n)
{
	char x[64], y[64], z[64], w[64];
	const struct tensor *out0 = n->n_outputs ? n->outputs[0] : NULL;
	fprintf(o, "\t/* %s (%s)%s%s */\n", n->name, ir_op_names[n->op], out0 ? " -> " : "",
	        out0 ? out0->name : "");
	switch (n->op) {
	case OP_GEMM:
	case OP_MATMUL: {
		int M, N, K, ta, tb;
		train_gemm_dims(n, &M, &N, &K, &ta, &tb);
		dev_expr(p, act_off, n->inputs[0], x, sizeof x);
		dev_expr(p, act_off, n->inputs[1], w, sizeof w);
		dev_expr(p, act_off, out0, y, sizeof y);
		/* row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T */
		fprintf(o, "\tBLAS(cublasSgemm(blas, %s, %s, %d, %d, %d, &one, %s, %d, %s, %d, &zero, "
		        "%s, %d));\n", tb ? "CUBLAS_OP_T" : "CUBLAS_OP_N",
		        ta ? "CUBLAS_OP_T" : "CUBLAS_OP_N", N, M, K, w, tb ? K : N, x, ta ? M : K, y, N);
		if (n->n_inputs > 2 && n->inputs[2]) {
			dev_expr(p, act_off, n->inputs[2], z, sizeof z);
			fprintf(o, "\tk_bias_add<<<GRID(%d), 256, 0, s_compute>>>(%d, %d, %s, %s);\n", M * N,
			        M, N, y, z);
		}
		break;
	}
	case OP_ADD: {
		const struct tensor *a = n->inputs[0], *b = n->inputs[1];
		const long long cnt = (long long)ir_numel(out0);
		dev_expr(p, act_off, out0, y, sizeof y);
		if (p->kind[a->index] == TS_PARAM || p->kind[b->index] == TS_PARAM) {
			if (p->kind[a->index] == TS_PARAM) {
				const struct tensor *t = a;
				a = b;
				b = t;
			}
			dev_expr(p, act_off, a, x, sizeof x);
			dev_expr(p, act_off, b, z, sizeof z);
			fprintf(o, "\tCUDA(cudaMemcpyAsync(%s, %s, sizeof(float) * %lld, "
			        "cudaMemcpyDeviceToDevice, s_compute));\n", y, x, cnt);
			fprintf(o, "\tk_bias_add<<<GRID(%lld), 256, 0, s_compute>>>(%lld, %lld, %s, %s);\n",
			        cnt, (long long)out0->dims[0], cnt / out0->dims[0], y, z);
		} else {
			dev_expr(p, act_off, a, x, sizeof x);
			dev_expr(p, act_off, b, z, sizeof z);
			fprintf(o, "\tk_add<<<GRID(%lld), 256, 0, s_compute>>>(%lld, %s, %s, %s);\n", cnt, cnt,
			        x, z, y);
		}
		break;
	}
	case OP_RELU:
	case OP_SIGMOID:
	case OP_TANH: {
		float alpha, beta; /* none of the three has attributes */
		dev_expr(p, act_off, n->inputs[0], x, sizeof x);
		dev_expr(p, act_off, out0, y, sizeof y);
		fprintf(o, "\tk_act<<<GRID(%lld), 256, 0, s_compute>>>(%s, %lld, %s, %s);\n",
		        (long long)ir_numel(out0), emit_act_names[ir_act_of((struct node *)n, &alpha, &beta)],
		        (long long)ir_numel(out0), x, y);
		break;
	}
	case OP_SOFTMAX:
		dev_expr(p, act_off, n->inputs[0], x, sizeof x);
		dev_expr(p, act_off, out0, y, sizeof y);
		fprintf(o, "\tk_softmax<<<GRID(%lld), 256, 0, s_compute>>>(%lld, %lld, %s, %s);\n",
		        (long long)out0->dims[0], (long long)out0->dims[0], (long long)out0->dims[1], x,
		        y);
		break;
	case OP_FLATTEN:
	case OP_RESHAPE: fprintf(o, "\t/* a view: no code */\n"); break;
	case OP_SOFTMAX_CE:
	case OP_MSE: {
		const struct tensor *in = n->inputs[0];
		const long long rows = (long long)in->dims[0], cols = (long long)ir_numel(in) / rows;
		dev_expr(p, act_off, in, x, sizeof x);
		dev_expr(p, act_off, n->outputs[1], y, sizeof y);
		if (n->op == OP_SOFTMAX_CE)
			fprintf(o, "\tk_softmax_ce<<<GRID(%lld), 256, 0, s_compute>>>(%lld, %lld, %s, "
			        "cur_labels, %s, d_loss_sum);\n", rows, rows, cols, x, y);
		else
			fprintf(o, "\tk_mse<<<GRID(%lld), 256, 0, s_compute>>>(%lld, %s, cur_labels, %s, "
			        "d_loss_sum);\n", rows * cols, rows * cols, x, y);
		break;
	}
	case OP_BIAS_GRAD: {
		const struct tensor *dy = n->inputs[0];
		const long long rows = (long long)dy->dims[0], cols = (long long)ir_numel(dy) / rows;
		dev_expr(p, act_off, dy, x, sizeof x);
		dev_expr(p, act_off, out0, y, sizeof y);
		fprintf(o, "\tk_bias_grad<<<GRID(%lld), 256, 0, s_compute>>>(%lld, %lld, %s, %s);\n", cols,
		        rows, cols, x, y);
		break;
	}
	case OP_ACT_GRAD:
	case OP_SOFTMAX_GRAD:
		dev_expr(p, act_off, n->inputs[0], x, sizeof x);
		dev_expr(p, act_off, n->inputs[1], z, sizeof z);
		dev_expr(p, act_off, out0, y, sizeof y);
		if (n->op == OP_ACT_GRAD)
			fprintf(o, "\tk_act_grad<<<GRID(%lld), 256, 0, s_compute>>>(%s, %lld, %s, %s, %s);\n",
			        (long long)ir_numel(out0), emit_act_names[n->act], (long long)ir_numel(out0), x,
			        z, y);
		else
			fprintf(o, "\tk_softmax_grad<<<GRID(%lld), 256, 0, s_compute>>>(%lld, %lld, %s, %s, "
			        "%s);\n", (long long)out0->dims[0], (long long)out0->dims[0],
			        (long long)out0->dims[1], x, z, y);
		break;
	case OP_OPTIMIZER_STEP: {
		const struct tensor *w0 = n->inputs[0];
		size_t off = p->off[w0->index], cnt = (size_t)ir_numel(w0);
		if (p->to->optimizer == TRAIN_OPT_SGD)
			fprintf(o, "\tk_sgd<<<GRID(%zu), 256, 0, s_compute>>>(%zu, d_params + %zu, d_grads + "
			        "%zu, learning_rate);\n", cnt, cnt, off, off);
		else if (p->to->optimizer == TRAIN_OPT_MOMENTUM)
			fprintf(o, "\tk_momentum<<<GRID(%zu), 256, 0, s_compute>>>(%zu, d_params + %zu, "
			        "d_grads + %zu, d_v + %zu, learning_rate, MOMENTUM);\n", cnt, cnt, off, off,
			        off);
		else
			fprintf(o, "\tk_adam<<<GRID(%zu), 256, 0, s_compute>>>(%zu, d_params + %zu, d_grads + "
			        "%zu, d_m + %zu, d_v + %zu, step, c2);\n", cnt, cnt, off, off, off, off);
		break;
	}
	default: unreachable("node the CUDA training emitter does not know");
	}
}

/* The kernels, each printed only when the graph uses it. */
static void print_kernels(FILE *o, const struct train_plan *p)
{
	int seen[OP_COUNT_] = {0}, bias_add = 0, grad_sum = 0;
	const struct graph *g = p->g;
	for (int i = 0; i < g->n_nodes; i++) {
		const struct node *n = g->nodes[i];
		seen[n->op] = 1;
		if ((n->op == OP_GEMM && n->n_inputs > 2 && n->inputs[2]) ||
		    (n->op == OP_ADD && (p->kind[n->inputs[0]->index] == TS_PARAM ||
		                         p->kind[n->inputs[1]->index] == TS_PARAM)))
			bias_add = 1;
		if (n->op == OP_ADD && p->kind[n->inputs[0]->index] != TS_PARAM &&
		    p->kind[n->inputs[1]->index] != TS_PARAM)
			grad_sum = 1;
	}
	fprintf(o, "/* ---- kernels: grid-stride loops over the elements (rows, columns) ---- */\n");
	fprintf(o, "#define GRID(n) ((unsigned)(((size_t)(n) + 255) / 256 < 4096 ? "
	        "((size_t)(n) + 255) / 256 : 4096))\n");
	fprintf(o, "#define FOR_EACH(i, n) for (size_t i = blockIdx.x * (size_t)blockDim.x + "
	        "threadIdx.x; i < (size_t)(n); i += (size_t)gridDim.x * blockDim.x)\n\n");
	if (bias_add)
		fprintf(o, "/* y[b, j] += bias[j]   y: [B, N] */\n"
		        "static __global__ void k_bias_add(int B, int N, float *y, const float *bias)\n"
		        "{\n\tFOR_EACH(i, (size_t)B * N)\n\t\ty[i] += bias[i %% N];\n}\n\n");
	if (grad_sum)
		fprintf(o, "/* y = a + b (sums the gradients of a tensor read twice) */\n"
		        "static __global__ void k_add(size_t n, const float *a, const float *b, float *y)\n"
		        "{\n\tFOR_EACH(i, n)\n\t\ty[i] = a[i] + b[i];\n}\n\n");
	if (seen[OP_RELU] || seen[OP_SIGMOID] || seen[OP_TANH])
		fprintf(o, "/* y = act(x) */\n"
		        "static __global__ void k_act(int act, size_t n, const float *x, float *y)\n{\n"
		        "\tFOR_EACH(i, n) {\n\t\tconst float v = x[i];\n"
		        "\t\ty[i] = act == RT_ACT_RELU ? (v > 0.0f ? v : 0.0f)\n"
		        "\t\t       : act == RT_ACT_SIGMOID ? 1.0f / (1.0f + expf(-v)) : tanhf(v);\n"
		        "\t}\n}\n\n");
	if (seen[OP_ACT_GRAD])
		fprintf(o, "/* dx = dy * act'(x), from y = act(x) */\n"
		        "static __global__ void k_act_grad(int act, size_t n, const float *y, "
		        "const float *dy, float *dx)\n{\n\tFOR_EACH(i, n) {\n"
		        "\t\tconst float v = y[i];\n"
		        "\t\tconst float d = act == RT_ACT_RELU ? (v > 0.0f ? 1.0f : 0.0f)\n"
		        "\t\t                : act == RT_ACT_SIGMOID ? v * (1.0f - v) : 1.0f - v * v;\n"
		        "\t\tdx[i] = dy[i] * d;\n\t}\n}\n\n");
	if (seen[OP_SOFTMAX])
		fprintf(o, "/* y[b, :] = softmax(x[b, :]), one thread per row */\n"
		        "static __global__ void k_softmax(int B, int N, const float *x, float *y)\n{\n"
		        "\tFOR_EACH(b, B) {\n\t\tconst float *xr = x + b * N;\n\t\tfloat *yr = y + b * N;\n"
		        "\t\tfloat mx = xr[0], s = 0.0f;\n"
		        "\t\tfor (int j = 1; j < N; j++)\n\t\t\tmx = fmaxf(mx, xr[j]);\n"
		        "\t\tfor (int j = 0; j < N; j++) {\n\t\t\tyr[j] = expf(xr[j] - mx);\n"
		        "\t\t\ts += yr[j];\n\t\t}\n"
		        "\t\tfor (int j = 0; j < N; j++)\n\t\t\tyr[j] /= s;\n\t}\n}\n\n");
	if (seen[OP_SOFTMAX_GRAD])
		fprintf(o, "/* dx = y * (dy - sum_j dy_j y_j) per row */\n"
		        "static __global__ void k_softmax_grad(int B, int N, const float *y, "
		        "const float *dy, float *dx)\n{\n"
		        "\tFOR_EACH(b, B) {\n\t\tfloat dot = 0.0f;\n"
		        "\t\tfor (int j = 0; j < N; j++)\n\t\t\tdot += dy[b * N + j] * y[b * N + j];\n"
		        "\t\tfor (int j = 0; j < N; j++)\n"
		        "\t\t\tdx[b * N + j] = y[b * N + j] * (dy[b * N + j] - dot);\n\t}\n}\n\n");
	if (seen[OP_SOFTMAX_CE])
		fprintf(o, "/* Softmax cross-entropy, mean over the batch; adds the loss to *loss_sum.\n"
		        " * z, dz: [B, N]; labels: [B] */\n"
		        "static __global__ void k_softmax_ce(int B, int N, const float *z, const int *labels, "
		        "float *dz, float *loss_sum)\n{\n"
		        "\tFOR_EACH(b, B) {\n\t\tconst float *zr = z + b * N;\n\t\tfloat *dr = dz + b * N;\n"
		        "\t\tfloat mx = zr[0], s = 0.0f;\n"
		        "\t\tfor (int j = 1; j < N; j++)\n\t\t\tmx = fmaxf(mx, zr[j]);\n"
		        "\t\tfor (int j = 0; j < N; j++) {\n\t\t\tdr[j] = expf(zr[j] - mx);\n"
		        "\t\t\ts += dr[j];\n\t\t}\n"
		        "\t\tconst int t = labels[b];\n"
		        "\t\tconst float lse = mx + logf(s);\n"
		        "\t\tatomicAdd(loss_sum, (t >= 0 && t < N ? lse - zr[t] : lse) / (float)B);\n"
		        "\t\tfor (int j = 0; j < N; j++)\n"
		        "\t\t\tdr[j] = (dr[j] / s - (j == t ? 1.0f : 0.0f)) / (float)B;\n\t}\n}\n\n");
	if (seen[OP_MSE])
		fprintf(o, "/* Mean squared error over n elements; adds the loss to *loss_sum. */\n"
		        "static __global__ void k_mse(size_t n, const float *y, const float *t, float *dy, "
		        "float *loss_sum)\n{\n"
		        "\tFOR_EACH(i, n) {\n\t\tconst float e = y[i] - t[i];\n"
		        "\t\tatomicAdd(loss_sum, e * e / (float)n);\n"
		        "\t\tdy[i] = 2.0f * e / (float)n;\n\t}\n}\n\n");
	if (seen[OP_BIAS_GRAD])
		fprintf(o, "/* db[j] = sum over b of dy[b, j], one thread per column */\n"
		        "static __global__ void k_bias_grad(int B, int N, const float *dy, float *db)\n{\n"
		        "\tFOR_EACH(j, N) {\n\t\tfloat s = 0.0f;\n"
		        "\t\tfor (int b = 0; b < B; b++)\n\t\t\ts += dy[(size_t)b * N + j];\n"
		        "\t\tdb[j] = s;\n\t}\n}\n\n");
	if (p->to->optimizer == TRAIN_OPT_SGD)
		fprintf(o, "/* torch.optim.SGD: p -= lr g */\n"
		        "static __global__ void k_sgd(size_t n, float *p, const float *g, float lr)\n{\n"
		        "\tFOR_EACH(i, n)\n\t\tp[i] -= lr * g[i];\n}\n\n");
	else if (p->to->optimizer == TRAIN_OPT_MOMENTUM)
		fprintf(o, "/* torch.optim.SGD with momentum: v = mu v + g; p -= lr v */\n"
		        "static __global__ void k_momentum(size_t n, float *p, const float *g, float *v, "
		        "float lr, float mu)\n{\n"
		        "\tFOR_EACH(i, n) {\n\t\tv[i] = mu * v[i] + g[i];\n\t\tp[i] -= lr * v[i];\n\t}\n}\n\n");
	else
		fprintf(o, "/* torch.optim.Adam: step = lr / (1 - b1^t), c2 = sqrt(1 - b2^t) */\n"
		        "static __global__ void k_adam(size_t n, float *p, const float *g, float *m, "
		        "float *v, float step, float c2)\n{\n"
		        "\tFOR_EACH(i, n) {\n"
		        "\t\tm[i] = BETA1 * m[i] + (1.0f - BETA1) * g[i];\n"
		        "\t\tv[i] = BETA2 * v[i] + (1.0f - BETA2) * g[i] * g[i];\n"
		        "\t\tp[i] -= step * m[i] / (sqrtf(v[i]) / c2 + EPSILON);\n\t}\n}\n\n");
}

struct cuda_job {
	const struct train_plan *p;
	const char *name, *base;
};

static int print_cu(FILE *o, void *arg)
{
	const struct cuda_job *j = arg;
	const struct train_plan *p = j->p;
	const struct graph *g = p->g;
	const struct train_options *to = p->to;
	const char *N = j->name;
	const int ce = to->loss == TRAIN_LOSS_SOFTMAX_CE;
	const struct tensor *x = g->inputs[0], *y = g->outputs[0];
	const long long B = (long long)x->dims[0];
	const long long in_row = (long long)ir_numel(x) / B, out_row = (long long)ir_numel(y) / B;
	const long long lab_row = ce ? 1 : out_row;
	const char *lab_t = ce ? "int" : "float";
	char lit[64];

	/* the activation arena */
	size_t *act_off = xcalloc(g->n_tensors, sizeof *act_off), act_floats = 0;
	for (int i = 0; i < g->n_tensors; i++)
		if (p->kind[i] == TS_BUF) {
			act_off[i] = act_floats;
			act_floats += ((size_t)ir_numel(g->tensors[i]) + 63) / 64 * 64;
		}

	fprintf(o, "/* %s.cu - CUDA training code generated by dnncc %s; do not edit.\n *\n", j->base,
	        PACKAGE_VERSION);
	fprintf(o, " * command line: %s\n", p->opt->command_line ? p->opt->command_line : "");
	fprintf(o, " * model file:   %s\n", g->source);
	fprintf(o, " * loss %s, optimizer %s, lr %g, batch %lld, pools of %d batches\n",
	        ce ? "softmax-ce" : "mse", to->optimizer == TRAIN_OPT_SGD ? "sgd"
	        : to->optimizer == TRAIN_OPT_MOMENTUM ? "momentum" : "adam", to->lr, B,
	        to->pool_batches);
	fprintf(o, " * parameters:   %zu floats in %d tensors; activations %zu floats\n *\n",
	        p->n_floats, p->n_params, act_floats);
	fprintf(o, " * Build: nvcc -O2 -c %s.cu; link with -lcublas -lcudart. */\n", j->base);
	fprintf(o, "#include \"%s.h\"\n\n#include <cublas_v2.h>\n#include <cuda_runtime.h>\n"
	        "#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	        "#include <string.h>\n\n", j->base);
	fprintf(o, "#define RT_FN static\n#define RT_ACT_RELU 1\n#define RT_ACT_SIGMOID 4\n"
	        "#define RT_ACT_TANH 5\n\n");
	train_copy_runtime(o, "runtime/train_pool.h");
	train_copy_runtime(o, "runtime/train_pool.c");
	if (to->optimizer == TRAIN_OPT_MOMENTUM) {
		train_float_literal(lit, sizeof lit, to->momentum);
		fprintf(o, "#define MOMENTUM %s /* %g */\n", lit, to->momentum);
	}
	if (to->optimizer == TRAIN_OPT_ADAM) {
		train_float_literal(lit, sizeof lit, to->beta1);
		fprintf(o, "#define BETA1 %s /* %g */\n", lit, to->beta1);
		train_float_literal(lit, sizeof lit, to->beta2);
		fprintf(o, "#define BETA2 %s /* %g */\n", lit, to->beta2);
		train_float_literal(lit, sizeof lit, to->eps);
		fprintf(o, "#define EPSILON %s /* %g */\n", lit, to->eps);
	}
	fprintf(o, "\n");
	print_kernels(o, p);
	train_print_init_bits(o, p, "uint32_t");

	fprintf(o, "/* ---- device state, allocated once by setup() ---- */\n");
	fprintf(o, "#define NUM_PARAMS %zu\n#define ACT_FLOATS %zu\n#define BATCH %lld\n"
	        "#define IN_ROW %lld   /* floats per input row */\n"
	        "#define LAB_ROW %lld  /* labels (or target floats) per row */\n"
	        "#define OUT_ROW %lld\n#define POOL %d      /* batches per pool */\n\n",
	        p->n_floats, act_floats ? act_floats : 1, B, in_row, lab_row, out_row,
	        to->pool_batches);
	fprintf(o, "static float *d_params, *d_grads; /* [NUM_PARAMS] each */\n");
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "static float *d_m;              /* Adam's first moments */\n");
	if (to->optimizer != TRAIN_OPT_SGD)
		fprintf(o, "static float *d_v;              /* %s */\n",
		        to->optimizer == TRAIN_OPT_ADAM ? "Adam's second moments" : "momentum buffers");
	fprintf(o, "static float *d_act;            /* [ACT_FLOATS] activations and their gradients */\n"
	        "static float *d_loss_sum;       /* the summed loss of the steps since the last reset */\n"
	        "static float *d_pool_x[2];      /* [POOL * BATCH * IN_ROW] each */\n"
	        "static %s *d_pool_labels[2];   /* [POOL * BATCH * LAB_ROW] each */\n"
	        "static const float *cur_x;      /* the batch being trained on, in a pool */\n"
	        "static const %s *cur_labels;\n"
	        "static cudaStream_t s_compute, s_copy;\n"
	        "static cudaEvent_t ev_copied[2], ev_consumed[2];\n"
	        "static cublasHandle_t blas;\n"
	        "static int ready;                /* setup() succeeded */\n"
	        "static long steps;               /* optimizer steps taken (Adam's t) */\n",
	        lab_t, lab_t);
	train_float_literal(lit, sizeof lit, to->lr);
	fprintf(o, "static float learning_rate = %s; /* %g */\n", lit, to->lr);
	fprintf(o, "static const float one = 1.0f, zero = 0.0f;\n\n");
	fprintf(o, "#define CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { "
	        "fprintf(stderr, \"%s: %%s: %%s\\n\", #call, cudaGetErrorString(e_)); return -1; } "
	        "} while (0)\n", N);
	fprintf(o, "#define BLAS(call) do { cublasStatus_t e_ = (call); if (e_ != "
	        "CUBLAS_STATUS_SUCCESS) { fprintf(stderr, \"%s: %%s: cuBLAS status %%d\\n\", #call, "
	        "(int)e_); return -1; } } while (0)\n\n", N);

	fprintf(o, "static int setup(void)\n{\n\tif (ready)\n\t\treturn 0;\n");
	fprintf(o, "\tCUDA(cudaMalloc((void **)&d_params, sizeof(float) * NUM_PARAMS));\n"
	        "\tCUDA(cudaMalloc((void **)&d_grads, sizeof(float) * NUM_PARAMS));\n");
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "\tCUDA(cudaMalloc((void **)&d_m, sizeof(float) * NUM_PARAMS));\n"
		        "\tCUDA(cudaMemset(d_m, 0, sizeof(float) * NUM_PARAMS));\n");
	if (to->optimizer != TRAIN_OPT_SGD)
		fprintf(o, "\tCUDA(cudaMalloc((void **)&d_v, sizeof(float) * NUM_PARAMS));\n"
		        "\tCUDA(cudaMemset(d_v, 0, sizeof(float) * NUM_PARAMS));\n");
	fprintf(o, "\tCUDA(cudaMalloc((void **)&d_act, sizeof(float) * ACT_FLOATS));\n"
	        "\tCUDA(cudaMalloc((void **)&d_loss_sum, sizeof(float)));\n"
	        "\tCUDA(cudaMemset(d_loss_sum, 0, sizeof(float)));\n"
	        "\tfor (int k = 0; k < 2; k++) {\n"
	        "\t\tCUDA(cudaMalloc((void **)&d_pool_x[k], sizeof(float) * POOL * BATCH * IN_ROW));\n"
	        "\t\tCUDA(cudaMalloc((void **)&d_pool_labels[k], sizeof(%s) * POOL * BATCH * LAB_ROW));\n"
	        "\t\tCUDA(cudaEventCreateWithFlags(&ev_copied[k], cudaEventDisableTiming));\n"
	        "\t\tCUDA(cudaEventCreateWithFlags(&ev_consumed[k], cudaEventDisableTiming));\n"
	        "\t}\n"
	        "\tCUDA(cudaStreamCreateWithFlags(&s_compute, cudaStreamNonBlocking));\n"
	        "\tCUDA(cudaStreamCreateWithFlags(&s_copy, cudaStreamNonBlocking));\n"
	        "\tBLAS(cublasCreate(&blas));\n\tBLAS(cublasSetStream(blas, s_compute));\n"
	        "\tCUDA(cudaMemcpy(d_params, init_bits, sizeof(float) * NUM_PARAMS, "
	        "cudaMemcpyHostToDevice));\n\tready = 1;\n\treturn 0;\n}\n\n", lab_t);

	/* forward, backward, update */
	fprintf(o, "static int forward(int infer)\n{\n");
	int any_infer = 0, i = 0;
	for (int k = 0; k < g->n_nodes; k++)
		any_infer |= train_infer_only(g->nodes[k]);
	if (!any_infer)
		fprintf(o, "\t(void)infer;\n");
	for (; i < g->n_nodes && g->nodes[i]->op != OP_SOFTMAX_CE && g->nodes[i]->op != OP_MSE; i++) {
		if (train_infer_only(g->nodes[i]))
			fprintf(o, "\tif (infer) {\n");
		print_node_cuda(o, p, act_off, g->nodes[i]);
		if (train_infer_only(g->nodes[i]))
			fprintf(o, "\t}\n");
	}
	fprintf(o, "\tCUDA(cudaGetLastError());\n\treturn 0;\n}\n\n");
	fprintf(o, "static int backward(void)\n{\n");
	for (; i < g->n_nodes && g->nodes[i]->op != OP_OPTIMIZER_STEP; i++)
		print_node_cuda(o, p, act_off, g->nodes[i]);
	fprintf(o, "\tCUDA(cudaGetLastError());\n\treturn 0;\n}\n\n");
	fprintf(o, "static int update(void)\n{\n\tsteps++;\n");
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "\tconst float step = learning_rate / (1.0f - (float)pow((double)BETA1, "
		        "(double)steps));\n"
		        "\tconst float c2 = (float)sqrt(1.0 - pow((double)BETA2, (double)steps));\n");
	for (; i < g->n_nodes; i++)
		print_node_cuda(o, p, act_off, g->nodes[i]);
	fprintf(o, "\tCUDA(cudaGetLastError());\n\treturn 0;\n}\n\n");
	fprintf(o, "static int step_on(const float *x, const %s *labels)\n{\n"
	        "\tcur_x = x;\n\tcur_labels = labels;\n"
	        "\treturn forward(0) || backward() || update() ? -1 : 0;\n}\n\n", lab_t);

	/* entry points */
	char yx[64];
	dev_expr(p, act_off, y, yx, sizeof yx);
	fprintf(o, "const size_t %s_input_sizes[] = {%lld};\n", N, (long long)ir_numel(x));
	fprintf(o, "const size_t %s_output_sizes[] = {%lld};\n\n", N, (long long)ir_numel(y));
	fprintf(o, "int %s_run(const float *const inputs[], float *const outputs[])\n{\n"
	        "\tif (!inputs || !outputs || !inputs[0] || !outputs[0] || setup())\n\t\treturn -1;\n"
	        "\tCUDA(cudaStreamSynchronize(s_copy)); /* pool 0 is free once copies are done */\n"
	        "\tCUDA(cudaMemcpyAsync(d_pool_x[0], inputs[0], sizeof(float) * BATCH * IN_ROW, "
	        "cudaMemcpyHostToDevice, s_compute));\n"
	        "\tcur_x = d_pool_x[0];\n\tif (forward(1))\n\t\treturn -1;\n"
	        "\tCUDA(cudaMemcpyAsync(outputs[0], %s, sizeof(float) * BATCH * OUT_ROW, "
	        "cudaMemcpyDeviceToHost, s_compute));\n"
	        "\tCUDA(cudaStreamSynchronize(s_compute));\n\treturn 0;\n}\n\n", N, yx);
	fprintf(o, "int %s_train_step%s(const float *x, const %s *%s, float *loss_out)\n{\n"
	        "\tif (!x || !%s || setup())\n\t\treturn -1;\n"
	        "\tCUDA(cudaStreamSynchronize(s_copy));\n"
	        "\tCUDA(cudaMemcpyAsync(d_pool_x[0], x, sizeof(float) * BATCH * IN_ROW, "
	        "cudaMemcpyHostToDevice, s_compute));\n"
	        "\tCUDA(cudaMemcpyAsync(d_pool_labels[0], %s, sizeof(%s) * BATCH * LAB_ROW, "
	        "cudaMemcpyHostToDevice, s_compute));\n"
	        "\tif (loss_out)\n\t\tCUDA(cudaMemsetAsync(d_loss_sum, 0, sizeof(float), s_compute));\n"
	        "\tif (step_on(d_pool_x[0], d_pool_labels[0]))\n\t\treturn -1;\n"
	        "\t/* the next epoch's first copy into pool 0 waits for this step */\n"
	        "\tCUDA(cudaEventRecord(ev_consumed[0], s_compute));\n"
	        "\tif (loss_out) {\n"
	        "\t\tCUDA(cudaMemcpyAsync(loss_out, d_loss_sum, sizeof(float), "
	        "cudaMemcpyDeviceToHost, s_compute));\n"
	        "\t\tCUDA(cudaStreamSynchronize(s_compute));\n\t}\n\treturn 0;\n}\n\n",
	        N, ce ? "" : "_mse", lab_t, ce ? "labels" : "target", ce ? "labels" : "target",
	        ce ? "labels" : "target", lab_t);
	fprintf(o, "int %s_train_epoch%s(const float *x, const %s *%s, long n_images, "
	        "float *mean_loss_out)\n{\n"
	        "\tif (!x || !%s || n_images < 0 || setup())\n\t\treturn -1;\n"
	        "\tconst int n_batches = (int)(n_images / BATCH); /* the rest are left out */\n"
	        "\tconst int n_ops = rt_pool_max_ops(n_batches, POOL);\n"
	        "\tstruct rt_pool_op *ops = (struct rt_pool_op *)malloc(sizeof *ops * (n_ops ? n_ops : 1));\n"
	        "\tint rc = ops ? 0 : -1;\n"
	        "\tif (ops)\n\t\trt_pool_schedule(n_batches, POOL, ops, n_ops);\n"
	        "\tif (rc == 0 && mean_loss_out && cudaMemsetAsync(d_loss_sum, 0, sizeof(float), "
	        "s_compute) != cudaSuccess)\n\t\trc = -1;\n"
	        "\tfor (int i = 0; i < n_ops && rc == 0; i++) {\n"
	        "\t\tconst struct rt_pool_op *o = &ops[i];\n"
	        "\t\tconst size_t first = (size_t)o->first_batch * BATCH, rows = (size_t)o->n_batches * BATCH;\n"
	        "\t\tcudaError_t e = cudaSuccess;\n"
	        "\t\tswitch (o->kind) {\n"
	        "\t\tcase RT_POOL_WAIT_CONSUMED: e = cudaStreamWaitEvent(s_copy, ev_consumed[o->pool], 0); break;\n"
	        "\t\tcase RT_POOL_COPY:\n"
	        "\t\t\te = cudaMemcpyAsync(d_pool_x[o->pool], x + first * IN_ROW, sizeof(float) * rows * "
	        "IN_ROW, cudaMemcpyHostToDevice, s_copy);\n"
	        "\t\t\tif (e == cudaSuccess)\n"
	        "\t\t\t\te = cudaMemcpyAsync(d_pool_labels[o->pool], %s + first * LAB_ROW, sizeof(%s) * "
	        "rows * LAB_ROW, cudaMemcpyHostToDevice, s_copy);\n"
	        "\t\t\tbreak;\n"
	        "\t\tcase RT_POOL_RECORD_COPIED: e = cudaEventRecord(ev_copied[o->pool], s_copy); break;\n"
	        "\t\tcase RT_POOL_WAIT_COPIED: e = cudaStreamWaitEvent(s_compute, ev_copied[o->pool], 0); break;\n"
	        "\t\tcase RT_POOL_TRAIN:\n"
	        "\t\t\tfor (int b = 0; b < o->n_batches && rc == 0; b++)\n"
	        "\t\t\t\trc = step_on(d_pool_x[o->pool] + (size_t)b * BATCH * IN_ROW,\n"
	        "\t\t\t\t             d_pool_labels[o->pool] + (size_t)b * BATCH * LAB_ROW);\n"
	        "\t\t\tbreak;\n"
	        "\t\tcase RT_POOL_RECORD_CONSUMED: e = cudaEventRecord(ev_consumed[o->pool], s_compute); break;\n"
	        "\t\tdefault: break;\n\t\t}\n"
	        "\t\tif (e != cudaSuccess) {\n"
	        "\t\t\tfprintf(stderr, \"%s_train_epoch: %%s\\n\", cudaGetErrorString(e));\n"
	        "\t\t\trc = -1;\n\t\t}\n\t}\n"
	        "\tfree(ops);\n"
	        "\tif (rc == 0 && mean_loss_out) {\n\t\tfloat sum = 0.0f;\n"
	        "\t\tif (cudaMemcpyAsync(&sum, d_loss_sum, sizeof(float), cudaMemcpyDeviceToHost, "
	        "s_compute) != cudaSuccess || cudaStreamSynchronize(s_compute) != cudaSuccess)\n"
	        "\t\t\treturn -1;\n"
	        "\t\t*mean_loss_out = n_batches ? sum / (float)n_batches : 0.0f;\n\t}\n"
	        "\treturn rc;\n}\n\n",
	        N, ce ? "" : "_mse", lab_t, ce ? "labels" : "target", ce ? "labels" : "target",
	        ce ? "labels" : "target", lab_t, N);
	fprintf(o, "int %s_synchronize(void)\n{\n\tif (setup())\n\t\treturn -1;\n"
	        "\tCUDA(cudaStreamSynchronize(s_copy));\n\tCUDA(cudaStreamSynchronize(s_compute));\n"
	        "\treturn 0;\n}\n\n", N);
	fprintf(o, "void *%s_host_alloc(size_t bytes)\n{\n\tvoid *p = NULL;\n"
	        "\treturn cudaMallocHost(&p, bytes) == cudaSuccess ? p : NULL;\n}\n\n", N);
	fprintf(o, "void %s_host_free(void *p)\n{\n\tcudaFreeHost(p);\n}\n\n", N);
	fprintf(o, "size_t %s_num_params(void)\n{\n\treturn NUM_PARAMS;\n}\n\n", N);
	fprintf(o, "void %s_get_params(float *dst)\n{\n\tif (setup() || cudaDeviceSynchronize() != "
	        "cudaSuccess ||\n\t    cudaMemcpy(dst, d_params, sizeof(float) * NUM_PARAMS, "
	        "cudaMemcpyDeviceToHost) != cudaSuccess)\n"
	        "\t\tfprintf(stderr, \"%s_get_params: CUDA failed\\n\");\n}\n\n", N, N);
	fprintf(o, "void %s_set_params(const float *src)\n{\n\tif (setup() || cudaDeviceSynchronize() "
	        "!= cudaSuccess ||\n\t    cudaMemcpy(d_params, src, sizeof(float) * NUM_PARAMS, "
	        "cudaMemcpyHostToDevice) != cudaSuccess)\n"
	        "\t\tfprintf(stderr, \"%s_set_params: CUDA failed\\n\");\n}\n\n", N, N);
	fprintf(o, "void %s_set_lr(float lr)\n{\n\tlearning_rate = lr;\n}\n\n", N);
	fprintf(o, "void %s_reset_optimizer(void)\n{\n\tif (setup() || cudaDeviceSynchronize() != "
	        "cudaSuccess)\n\t\treturn;\n\tsteps = 0;\n", N);
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "\tcudaMemset(d_m, 0, sizeof(float) * NUM_PARAMS);\n");
	if (to->optimizer != TRAIN_OPT_SGD)
		fprintf(o, "\tcudaMemset(d_v, 0, sizeof(float) * NUM_PARAMS);\n");
	fprintf(o, "}\n\n");
	fprintf(o, "void %s_release(void)\n{\n\tif (!ready)\n\t\treturn;\n"
	        "\tcudaDeviceSynchronize();\n\tcublasDestroy(blas);\n"
	        "\tfor (int k = 0; k < 2; k++) {\n\t\tcudaFree(d_pool_x[k]);\n"
	        "\t\tcudaFree(d_pool_labels[k]);\n\t\tcudaEventDestroy(ev_copied[k]);\n"
	        "\t\tcudaEventDestroy(ev_consumed[k]);\n\t}\n"
	        "\tcudaStreamDestroy(s_compute);\n\tcudaStreamDestroy(s_copy);\n"
	        "\tcudaFree(d_params);\n\tcudaFree(d_grads);\n\tcudaFree(d_act);\n"
	        "\tcudaFree(d_loss_sum);\n", N);
	if (to->optimizer == TRAIN_OPT_ADAM)
		fprintf(o, "\tcudaFree(d_m);\n");
	if (to->optimizer != TRAIN_OPT_SGD)
		fprintf(o, "\tcudaFree(d_v);\n");
	fprintf(o, "\tready = 0;\n\tsteps = 0;\n}\n\n");
	train_print_param_tables(o, p, N);
	free(act_off);
	return ferror(o) ? -1 : 0;
}

void train_print_cuda_header_extra(FILE *o, const struct train_plan *p, const char *N,
                                   const char *U)
{
	const int ce = p->to->loss == TRAIN_LOSS_SOFTMAX_CE;
	fprintf(o, "\n/* ---- CUDA (NAME.cu) ---- */\n");
	fprintf(o, "#define %s_POOL_BATCHES %d /* batches per host-to-device pool */\n", U,
	        p->to->pool_batches);
	fprintf(o, "/* One epoch: n_images / BATCH steps on x [n_images, INPUT_SIZE] and %s,\n"
	        " * in this order (shuffle them first), in pinned host memory (%s_host_alloc);\n"
	        " * the n_images %% BATCH rows left over are not used. The batches go to the\n"
	        " * device through two pools of POOL_BATCHES batches, copied while the other\n"
	        " * pool trains. mean_loss_out: the mean batch loss, or NULL (then nothing is\n"
	        " * copied back and the call may return before the device is done; see\n"
	        " * %s_synchronize). 0 on success, -1 on a CUDA error (printed). */\n",
	        ce ? "labels [n_images]" : "target [n_images, OUTPUT_SIZE]", N, N);
	fprintf(o, "int %s_train_epoch%s(const float *x, const %s *%s, long n_images, "
	        "float *mean_loss_out);\n", N, ce ? "" : "_mse", ce ? "int" : "float",
	        ce ? "labels" : "target");
	fprintf(o, "int %s_synchronize(void);          /* waits for the device */\n", N);
	fprintf(o, "void *%s_host_alloc(size_t bytes); /* pinned host memory, or NULL */\n", N);
	fprintf(o, "void %s_host_free(void *p);\n", N);
	fprintf(o, "void %s_release(void);             /* frees the device state */\n", N);
}

int train_write_cuda(const struct train_plan *p, const char *path, const char *name,
                     const char *base, struct diag *d)
{
	struct cuda_job j = {p, name, base};
	return train_write_file(path, print_cu, &j, d);
}
