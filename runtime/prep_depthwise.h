/* prep_depthwise.h - compile-time functions of the depthwise family rows (see prep.h). */
#ifndef DNNCC_PREP_DEPTHWISE_H
#define DNNCC_PREP_DEPTHWISE_H

#include "runtime/primitives.h"

#endif
