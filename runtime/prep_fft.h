/* prep_fft.h - compile-time functions of the fft family rows (see prep.h). */
#ifndef DNNCC_PREP_FFT_H
#define DNNCC_PREP_FFT_H

#include "runtime/primitives.h"

#endif
