/* conv_layers.h - the convolution layers of the networks the primitive
 * library is tested and benchmarked on (batch 1), from the published
 * architectures: AlexNet as released with BVLC Caffe (227x227, grouped conv2,
 * conv4, conv5), VGG-16 (configuration D), GoogLeNet (inception v1, as in the
 * BVLC deploy file), ResNet-50 (torchvision's v1.5: stride in the 3x3 conv),
 * MobileNetV2 (width 1.0) and MobileNetV1 at width 0.25 on 96x96 (MLPerf Tiny's
 * visual wake words model). Repeated identical layers are listed once with
 * their count. */
#ifndef DNNCC_CONV_LAYERS_H
#define DNNCC_CONV_LAYERS_H

struct conv_layer {
	const char *net;
	const char *name;
	int C, H, W; /* input */
	int M;       /* output channels */
	int k;       /* square kernel */
	int s, pad;  /* stride, symmetric padding */
	int group;
	int count;   /* how many layers of the network have this shape */
};

static const struct conv_layer conv_layers[] = {
	/* AlexNet (BVLC) */
	{"alexnet", "conv1", 3, 227, 227, 96, 11, 4, 0, 1, 1},
	{"alexnet", "conv2", 96, 27, 27, 256, 5, 1, 2, 2, 1},
	{"alexnet", "conv3", 256, 13, 13, 384, 3, 1, 1, 1, 1},
	{"alexnet", "conv4", 384, 13, 13, 384, 3, 1, 1, 2, 1},
	{"alexnet", "conv5", 384, 13, 13, 256, 3, 1, 1, 2, 1},
	/* VGG-16, configuration D */
	{"vgg16", "conv1_1", 3, 224, 224, 64, 3, 1, 1, 1, 1},
	{"vgg16", "conv1_2", 64, 224, 224, 64, 3, 1, 1, 1, 1},
	{"vgg16", "conv2_1", 64, 112, 112, 128, 3, 1, 1, 1, 1},
	{"vgg16", "conv2_2", 128, 112, 112, 128, 3, 1, 1, 1, 1},
	{"vgg16", "conv3_1", 128, 56, 56, 256, 3, 1, 1, 1, 1},
	{"vgg16", "conv3_2", 256, 56, 56, 256, 3, 1, 1, 1, 2},
	{"vgg16", "conv4_1", 256, 28, 28, 512, 3, 1, 1, 1, 1},
	{"vgg16", "conv4_2", 512, 28, 28, 512, 3, 1, 1, 1, 2},
	{"vgg16", "conv5_1", 512, 14, 14, 512, 3, 1, 1, 1, 3},
	/* GoogLeNet (inception v1) */
	{"googlenet", "conv1/7x7_s2", 3, 224, 224, 64, 7, 2, 3, 1, 1},
	{"googlenet", "conv2/3x3_reduce", 64, 56, 56, 64, 1, 1, 0, 1, 1},
	{"googlenet", "conv2/3x3", 64, 56, 56, 192, 3, 1, 1, 1, 1},
	{"googlenet", "3a/1x1", 192, 28, 28, 64, 1, 1, 0, 1, 1},
	{"googlenet", "3a/3x3_reduce", 192, 28, 28, 96, 1, 1, 0, 1, 1},
	{"googlenet", "3a/3x3", 96, 28, 28, 128, 3, 1, 1, 1, 1},
	{"googlenet", "3a/5x5_reduce", 192, 28, 28, 16, 1, 1, 0, 1, 1},
	{"googlenet", "3a/5x5", 16, 28, 28, 32, 5, 1, 2, 1, 1},
	{"googlenet", "3a/pool_proj", 192, 28, 28, 32, 1, 1, 0, 1, 1},
	{"googlenet", "3b/1x1", 256, 28, 28, 128, 1, 1, 0, 1, 2},
	{"googlenet", "3b/3x3", 128, 28, 28, 192, 3, 1, 1, 1, 1},
	{"googlenet", "3b/5x5_reduce", 256, 28, 28, 32, 1, 1, 0, 1, 1},
	{"googlenet", "3b/5x5", 32, 28, 28, 96, 5, 1, 2, 1, 1},
	{"googlenet", "3b/pool_proj", 256, 28, 28, 64, 1, 1, 0, 1, 1},
	{"googlenet", "4a/1x1", 480, 14, 14, 192, 1, 1, 0, 1, 1},
	{"googlenet", "4a/3x3_reduce", 480, 14, 14, 96, 1, 1, 0, 1, 1},
	{"googlenet", "4a/3x3", 96, 14, 14, 208, 3, 1, 1, 1, 1},
	{"googlenet", "4a/5x5_reduce", 480, 14, 14, 16, 1, 1, 0, 1, 1},
	{"googlenet", "4a/5x5", 16, 14, 14, 48, 5, 1, 2, 1, 1},
	{"googlenet", "4a/pool_proj", 480, 14, 14, 64, 1, 1, 0, 1, 1},
	{"googlenet", "4b/1x1", 512, 14, 14, 160, 1, 1, 0, 1, 1},
	{"googlenet", "4b/3x3_reduce", 512, 14, 14, 112, 1, 1, 0, 1, 1},
	{"googlenet", "4b/3x3", 112, 14, 14, 224, 3, 1, 1, 1, 1},
	{"googlenet", "4b/5x5_reduce", 512, 14, 14, 24, 1, 1, 0, 1, 2},
	{"googlenet", "4b/5x5", 24, 14, 14, 64, 5, 1, 2, 1, 2},
	{"googlenet", "4b/pool_proj", 512, 14, 14, 64, 1, 1, 0, 1, 3},
	{"googlenet", "4c/1x1", 512, 14, 14, 128, 1, 1, 0, 1, 2},
	{"googlenet", "4c/3x3", 128, 14, 14, 256, 3, 1, 1, 1, 1},
	{"googlenet", "4d/1x1", 512, 14, 14, 112, 1, 1, 0, 1, 1},
	{"googlenet", "4d/3x3_reduce", 512, 14, 14, 144, 1, 1, 0, 1, 1},
	{"googlenet", "4d/3x3", 144, 14, 14, 288, 3, 1, 1, 1, 1},
	{"googlenet", "4d/5x5_reduce", 512, 14, 14, 32, 1, 1, 0, 1, 1},
	{"googlenet", "4d/5x5", 32, 14, 14, 64, 5, 1, 2, 1, 1},
	{"googlenet", "4e/1x1", 528, 14, 14, 256, 1, 1, 0, 1, 1},
	{"googlenet", "4e/3x3_reduce", 528, 14, 14, 160, 1, 1, 0, 1, 1},
	{"googlenet", "4e/3x3", 160, 14, 14, 320, 3, 1, 1, 1, 1},
	{"googlenet", "4e/5x5_reduce", 528, 14, 14, 32, 1, 1, 0, 1, 1},
	{"googlenet", "4e/5x5", 32, 14, 14, 128, 5, 1, 2, 1, 1},
	{"googlenet", "4e/pool_proj", 528, 14, 14, 128, 1, 1, 0, 1, 1},
	{"googlenet", "5a/1x1", 832, 7, 7, 256, 1, 1, 0, 1, 1},
	{"googlenet", "5a/3x3_reduce", 832, 7, 7, 160, 1, 1, 0, 1, 1},
	{"googlenet", "5a/3x3", 160, 7, 7, 320, 3, 1, 1, 1, 1},
	{"googlenet", "5a/5x5_reduce", 832, 7, 7, 32, 1, 1, 0, 1, 1},
	{"googlenet", "5a/5x5", 32, 7, 7, 128, 5, 1, 2, 1, 1},
	{"googlenet", "5a/pool_proj", 832, 7, 7, 128, 1, 1, 0, 1, 2},
	{"googlenet", "5b/1x1", 832, 7, 7, 384, 1, 1, 0, 1, 1},
	{"googlenet", "5b/3x3_reduce", 832, 7, 7, 192, 1, 1, 0, 1, 1},
	{"googlenet", "5b/3x3", 192, 7, 7, 384, 3, 1, 1, 1, 1},
	{"googlenet", "5b/5x5_reduce", 832, 7, 7, 48, 1, 1, 0, 1, 1},
	{"googlenet", "5b/5x5", 48, 7, 7, 128, 5, 1, 2, 1, 1},
	/* ResNet-50 (v1.5) */
	{"resnet50", "conv1", 3, 224, 224, 64, 7, 2, 3, 1, 1},
	{"resnet50", "layer1.0.conv1", 64, 56, 56, 64, 1, 1, 0, 1, 1},
	{"resnet50", "layer1.x.conv2", 64, 56, 56, 64, 3, 1, 1, 1, 3},
	{"resnet50", "layer1.x.conv3", 64, 56, 56, 256, 1, 1, 0, 1, 4}, /* + downsample */
	{"resnet50", "layer1.x.conv1", 256, 56, 56, 64, 1, 1, 0, 1, 2},
	{"resnet50", "layer2.0.conv1", 256, 56, 56, 128, 1, 1, 0, 1, 1},
	{"resnet50", "layer2.0.conv2", 128, 56, 56, 128, 3, 2, 1, 1, 1},
	{"resnet50", "layer2.0.downsample", 256, 56, 56, 512, 1, 2, 0, 1, 1},
	{"resnet50", "layer2.x.conv3", 128, 28, 28, 512, 1, 1, 0, 1, 4},
	{"resnet50", "layer2.x.conv1", 512, 28, 28, 128, 1, 1, 0, 1, 3},
	{"resnet50", "layer2.x.conv2", 128, 28, 28, 128, 3, 1, 1, 1, 3},
	{"resnet50", "layer3.0.conv1", 512, 28, 28, 256, 1, 1, 0, 1, 1},
	{"resnet50", "layer3.0.conv2", 256, 28, 28, 256, 3, 2, 1, 1, 1},
	{"resnet50", "layer3.0.downsample", 512, 28, 28, 1024, 1, 2, 0, 1, 1},
	{"resnet50", "layer3.x.conv3", 256, 14, 14, 1024, 1, 1, 0, 1, 6},
	{"resnet50", "layer3.x.conv1", 1024, 14, 14, 256, 1, 1, 0, 1, 5},
	{"resnet50", "layer3.x.conv2", 256, 14, 14, 256, 3, 1, 1, 1, 5},
	{"resnet50", "layer4.0.conv1", 1024, 14, 14, 512, 1, 1, 0, 1, 1},
	{"resnet50", "layer4.0.conv2", 512, 14, 14, 512, 3, 2, 1, 1, 1},
	{"resnet50", "layer4.0.downsample", 1024, 14, 14, 2048, 1, 2, 0, 1, 1},
	{"resnet50", "layer4.x.conv3", 512, 7, 7, 2048, 1, 1, 0, 1, 3},
	{"resnet50", "layer4.x.conv1", 2048, 7, 7, 512, 1, 1, 0, 1, 2},
	{"resnet50", "layer4.x.conv2", 512, 7, 7, 512, 3, 1, 1, 1, 2},
	/* MobileNetV2 */
	{"mobilenetv2", "features.0", 3, 224, 224, 32, 3, 2, 1, 1, 1},
	{"mobilenetv2", "b1.dw", 32, 112, 112, 32, 3, 1, 1, 32, 1},
	{"mobilenetv2", "b1.project", 32, 112, 112, 16, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b2.expand", 16, 112, 112, 96, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b2.dw", 96, 112, 112, 96, 3, 2, 1, 96, 1},
	{"mobilenetv2", "b2.project", 96, 56, 56, 24, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b3.expand", 24, 56, 56, 144, 1, 1, 0, 1, 2},
	{"mobilenetv2", "b3.dw", 144, 56, 56, 144, 3, 1, 1, 144, 1},
	{"mobilenetv2", "b3.project", 144, 56, 56, 24, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b4.dw", 144, 56, 56, 144, 3, 2, 1, 144, 1},
	{"mobilenetv2", "b4.project", 144, 28, 28, 32, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b5.expand", 32, 28, 28, 192, 1, 1, 0, 1, 3},
	{"mobilenetv2", "b5.dw", 192, 28, 28, 192, 3, 1, 1, 192, 2},
	{"mobilenetv2", "b5.project", 192, 28, 28, 32, 1, 1, 0, 1, 2},
	{"mobilenetv2", "b7.dw", 192, 28, 28, 192, 3, 2, 1, 192, 1},
	{"mobilenetv2", "b7.project", 192, 14, 14, 64, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b8.expand", 64, 14, 14, 384, 1, 1, 0, 1, 4},
	{"mobilenetv2", "b8.dw", 384, 14, 14, 384, 3, 1, 1, 384, 4},
	{"mobilenetv2", "b8.project", 384, 14, 14, 64, 1, 1, 0, 1, 3},
	{"mobilenetv2", "b11.project", 384, 14, 14, 96, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b12.expand", 96, 14, 14, 576, 1, 1, 0, 1, 3},
	{"mobilenetv2", "b12.dw", 576, 14, 14, 576, 3, 1, 1, 576, 2},
	{"mobilenetv2", "b12.project", 576, 14, 14, 96, 1, 1, 0, 1, 2},
	{"mobilenetv2", "b14.dw", 576, 14, 14, 576, 3, 2, 1, 576, 1},
	{"mobilenetv2", "b14.project", 576, 7, 7, 160, 1, 1, 0, 1, 1},
	{"mobilenetv2", "b15.expand", 160, 7, 7, 960, 1, 1, 0, 1, 3},
	{"mobilenetv2", "b15.dw", 960, 7, 7, 960, 3, 1, 1, 960, 3},
	{"mobilenetv2", "b15.project", 960, 7, 7, 160, 1, 1, 0, 1, 2},
	{"mobilenetv2", "b17.project", 960, 7, 7, 320, 1, 1, 0, 1, 1},
	{"mobilenetv2", "features.18", 320, 7, 7, 1280, 1, 1, 0, 1, 1},
	/* MobileNetV1, width 0.25, 96x96 input (MLPerf Tiny visual wake words):
	 * conv0 3x3 s2, then 13 depthwise 3x3 + 1x1 pairs */
	{"mobilenetv1_025", "conv0", 3, 96, 96, 8, 3, 2, 1, 1, 1},
	{"mobilenetv1_025", "dw1", 8, 48, 48, 8, 3, 1, 1, 8, 1},
	{"mobilenetv1_025", "pw1", 8, 48, 48, 16, 1, 1, 0, 1, 1},
	{"mobilenetv1_025", "dw2", 16, 48, 48, 16, 3, 2, 1, 16, 1},
	{"mobilenetv1_025", "pw2", 16, 24, 24, 32, 1, 1, 0, 1, 1},
	{"mobilenetv1_025", "dw3", 32, 24, 24, 32, 3, 1, 1, 32, 1},
	{"mobilenetv1_025", "pw3", 32, 24, 24, 32, 1, 1, 0, 1, 1},
	{"mobilenetv1_025", "dw4", 32, 24, 24, 32, 3, 2, 1, 32, 1},
	{"mobilenetv1_025", "pw4", 32, 12, 12, 64, 1, 1, 0, 1, 1},
	{"mobilenetv1_025", "dw5", 64, 12, 12, 64, 3, 1, 1, 64, 1},
	{"mobilenetv1_025", "pw5", 64, 12, 12, 64, 1, 1, 0, 1, 1},
	{"mobilenetv1_025", "dw6", 64, 12, 12, 64, 3, 2, 1, 64, 1},
	{"mobilenetv1_025", "pw6", 64, 6, 6, 128, 1, 1, 0, 1, 1},
	{"mobilenetv1_025", "dw7", 128, 6, 6, 128, 3, 1, 1, 128, 5},
	{"mobilenetv1_025", "pw7", 128, 6, 6, 128, 1, 1, 0, 1, 5},
	{"mobilenetv1_025", "dw12", 128, 6, 6, 128, 3, 2, 1, 128, 1},
	{"mobilenetv1_025", "pw12", 128, 3, 3, 256, 1, 1, 0, 1, 1},
	{"mobilenetv1_025", "dw13", 256, 3, 3, 256, 3, 1, 1, 256, 1},
	{"mobilenetv1_025", "pw13", 256, 3, 3, 256, 1, 1, 0, 1, 1},
};

#define N_CONV_LAYERS ((int)(sizeof conv_layers / sizeof conv_layers[0]))

#endif
