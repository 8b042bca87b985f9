/* train_ops.c - the element-wise and row-wise kernels of training code for
 * fully-connected networks (dnncc --train): bias, activations and their
 * gradients, softmax, the losses, the bias gradient and the optimizers. The
 * GEMMs of the forward and backward pass are rt_sgemm (sgemm.h).
 *
 * Every matrix is row-major [B, N]: B rows (the batch), N columns (features).
 * Gradients follow the chain rule for the forward function named beside each
 * kernel; the optimizers follow torch.optim's update rules (SGD, SGD with
 * momentum, Adam without weight decay) so that a step matches PyTorch's.
 * Built into libdnncc_rt.a for the tests (prototypes in train_rt.h) and copied
 * into generated training code, where RT_FN is `static`. */
#include "runtime/rt_types.h"
#include "runtime/train_rt.h"

/* y[b, j] += bias[j]   y: [B, N]   bias: [N] */
RT_FN void rt_train_bias_add(int B, int N, float *y, const float *bias)
{
	for (int b = 0; b < B; b++)
		for (int j = 0; j < N; j++)
			y[(size_t)b * N + j] += bias[j];
}

/* db[j] = sum over b of dy[b, j] (the gradient of a broadcast bias)
 * dy: [B, N]   db: out [N] */
RT_FN void rt_train_bias_grad(int B, int N, const float *dy, float *db)
{
	for (int j = 0; j < N; j++)
		db[j] = 0.0f;
	for (int b = 0; b < B; b++)
		for (int j = 0; j < N; j++)
			db[j] += dy[(size_t)b * N + j];
}

/* y = act(x), element-wise over n values; act is RT_ACT_RELU, _SIGMOID or
 * _TANH (x and y may be the same buffer). */
RT_FN void rt_train_act(int act, size_t n, const float *x, float *y)
{
	for (size_t i = 0; i < n; i++)
		y[i] = rt_act_apply(act, 0.0f, 0.0f, x[i]);
}

/* dx = dy * act'(x), written in terms of the forward output y = act(x):
 * relu' = [y > 0], sigmoid' = y (1 - y), tanh' = 1 - y^2. dx may be dy. */
RT_FN void rt_train_act_grad(int act, size_t n, const float *y, const float *dy, float *dx)
{
	for (size_t i = 0; i < n; i++) {
		float d = 1.0f;
		if (act == RT_ACT_RELU)
			d = y[i] > 0.0f ? 1.0f : 0.0f;
		else if (act == RT_ACT_SIGMOID)
			d = y[i] * (1.0f - y[i]);
		else if (act == RT_ACT_TANH)
			d = 1.0f - y[i] * y[i];
		dx[i] = dy[i] * d;
	}
}

/* y[b, :] = softmax(x[b, :]) per row, stabilised by the row maximum.
 * x, y: [B, N] (may be the same buffer) */
RT_FN void rt_train_softmax(int B, int N, const float *x, float *y)
{
	for (int b = 0; b < B; b++) {
		const float *xr = x + (size_t)b * N;
		float *yr = y + (size_t)b * N;
		float mx = xr[0], s = 0.0f;
		for (int j = 1; j < N; j++)
			mx = xr[j] > mx ? xr[j] : mx;
		for (int j = 0; j < N; j++) {
			yr[j] = expf(xr[j] - mx);
			s += yr[j];
		}
		for (int j = 0; j < N; j++)
			yr[j] /= s;
	}
}

/* Gradient of y = softmax(x) per row: dx = y * (dy - sum_j dy_j y_j).
 * y, dy: [B, N]   dx: out [B, N] (may be dy) */
RT_FN void rt_train_softmax_grad(int B, int N, const float *y, const float *dy, float *dx)
{
	for (int b = 0; b < B; b++) {
		const float *yr = y + (size_t)b * N, *gr = dy + (size_t)b * N;
		float *dr = dx + (size_t)b * N;
		float dot = 0.0f;
		for (int j = 0; j < N; j++)
			dot += gr[j] * yr[j];
		for (int j = 0; j < N; j++)
			dr[j] = yr[j] * (gr[j] - dot);
	}
}

/* Softmax cross-entropy, mean over the batch (torch.nn.CrossEntropyLoss):
 *   loss = -1/B sum_b log softmax(z[b, :])[label_b]
 *   dz[b, j] = (softmax(z[b, :])_j - [j == label_b]) / B
 * z: logits [B, N]; labels: [B], each in 0..N-1 (others count as no class:
 * they add log-sum-exp only); dz: out [B, N]. Returns the loss. */
RT_FN float rt_train_softmax_ce(int B, int N, const float *z, const int *labels, float *dz)
{
	double loss = 0.0;
	for (int b = 0; b < B; b++) {
		const float *zr = z + (size_t)b * N;
		float *dr = dz + (size_t)b * N;
		float mx = zr[0], s = 0.0f;
		for (int j = 1; j < N; j++)
			mx = zr[j] > mx ? zr[j] : mx;
		for (int j = 0; j < N; j++) {
			dr[j] = expf(zr[j] - mx);
			s += dr[j];
		}
		const float lse = mx + logf(s);
		const int t = labels[b];
		if (t >= 0 && t < N)
			loss += (double)(lse - zr[t]);
		else
			loss += (double)lse;
		for (int j = 0; j < N; j++)
			dr[j] = (dr[j] / s - (j == t ? 1.0f : 0.0f)) / (float)B;
	}
	return (float)(loss / B);
}

/* Mean squared error over all B*N elements (torch.nn.MSELoss):
 *   loss = 1/(B N) sum (y - t)^2,   dy = 2 (y - t) / (B N)
 * y, t: [B, N]; dy: out [B, N]. Returns the loss. */
RT_FN float rt_train_mse(int B, int N, const float *y, const float *t, float *dy)
{
	const size_t n = (size_t)B * N;
	double loss = 0.0;
	for (size_t i = 0; i < n; i++) {
		const float e = y[i] - t[i];
		loss += (double)e * e;
		dy[i] = 2.0f * e / (float)n;
	}
	return (float)(loss / (double)n);
}

/* Number of rows b whose largest z[b, :] is at labels[b]. z: [B, N] */
RT_FN int rt_train_count_correct(int B, int N, const float *z, const int *labels)
{
	int hits = 0;
	for (int b = 0; b < B; b++) {
		const float *zr = z + (size_t)b * N;
		int best = 0;
		for (int j = 1; j < N; j++)
			best = zr[j] > zr[best] ? j : best;
		hits += best == labels[b];
	}
	return hits;
}

/* torch.optim.SGD without momentum: p -= lr g.   p, g: [n] */
RT_FN void rt_train_sgd(size_t n, float *p, const float *g, float lr)
{
	for (size_t i = 0; i < n; i++)
		p[i] -= lr * g[i];
}

/* torch.optim.SGD with momentum mu (dampening 0, not Nesterov):
 *   v = mu v + g (v = g at the first step),  p -= lr v
 * p, g, v: [n]; v starts at zero, which gives v = g on the first step. */
RT_FN void rt_train_momentum(size_t n, float *p, const float *g, float *v, float lr, float mu)
{
	for (size_t i = 0; i < n; i++) {
		v[i] = mu * v[i] + g[i];
		p[i] -= lr * v[i];
	}
}

/* torch.optim.Adam (Kingma & Ba 2015, Algorithm 1, as PyTorch computes it):
 *   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2
 *   p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
 * p, g, m, v: [n]; t: the step number, from 1. */
RT_FN void rt_train_adam(size_t n, float *p, const float *g, float *m, float *v, float lr,
                         float b1, float b2, float eps, long t)
{
	const float c1 = 1.0f - (float)pow((double)b1, (double)t);
	const float c2 = (float)sqrt(1.0 - pow((double)b2, (double)t));
	const float step = lr / c1;
	for (size_t i = 0; i < n; i++) {
		m[i] = b1 * m[i] + (1.0f - b1) * g[i];
		v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
		p[i] -= step * m[i] / (sqrtf(v[i]) / c2 + eps);
	}
}
