/* pool_check.c - on a GPU: one epoch through NAME_train_epoch's two pools
 * (model `a`, pools of 3 batches) must train exactly like the same batches
 * given one at a time to NAME_train_step (model `b`): 7 batches of 32 and 5
 * images left over, so the pools hold 3, 3 and the 1 remainder batch. Both
 * were generated from one ONNX model with the same optimizer.
 *   usage: pool_check   (prints the largest difference; exit 1 above 1e-6) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "a.h"
#include "b.h"

int main(void)
{
	enum { STEPS = 7, EXTRA = 5 };
	const long n = STEPS * A_BATCH + EXTRA;
	float *x = a_host_alloc(sizeof(float) * n * A_INPUT_SIZE);
	int *labels = a_host_alloc(sizeof(int) * n);
	if (!x || !labels) {
		fprintf(stderr, "pool_check: no pinned memory (no CUDA device?)\n");
		return 1;
	}
	unsigned s = 12345;
	for (long i = 0; i < n * A_INPUT_SIZE; i++) {
		s = s * 1103515245u + 12345u;
		x[i] = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
	}
	for (long i = 0; i < n; i++)
		labels[i] = (int)(i * 7 % A_OUTPUT_SIZE);
	float mean = 0.0f, sum = 0.0f;
	if (a_train_epoch(x, labels, n, &mean) != 0)
		return 1;
	for (int k = 0; k < STEPS; k++) {
		float l;
		if (b_train_step(x + (size_t)k * A_BATCH * A_INPUT_SIZE, labels + k * A_BATCH, &l) != 0)
			return 1;
		sum += l;
	}
	float *pa = malloc(sizeof(float) * a_num_params()), *pb = malloc(sizeof(float) * b_num_params());
	a_get_params(pa);
	b_get_params(pb);
	double worst = 0.0;
	for (size_t i = 0; i < a_num_params(); i++)
		worst = fmax(worst, fabs((double)pa[i] - pb[i]));
	const double dl = fabs(mean - sum / STEPS);
	printf("pools vs single steps: max |param difference| = %.3g, mean loss %.6f vs %.6f\n", worst,
	       (double)mean, (double)(sum / STEPS));
	a_host_free(x);
	a_host_free(labels);
	return worst <= 1e-6 && dl <= 1e-5 ? 0 : 1;
}
