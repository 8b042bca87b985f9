/* train.h - `dnncc --train`: the command line and pipeline of training code
 * (driver/train.c). main() hands over the whole command line when it holds
 * --train. */
#ifndef DNNCC_DRIVER_TRAIN_H
#define DNNCC_DRIVER_TRAIN_H

int train_main(int argc, char **argv);

#endif
