// The host bundle in images: the bundle's size, the image mode's build (first, then reused), and
// container start to first observation for the busybox and Debian test images, each against
// `docker run <image> true` (create, start, wait, remove through the Engine API) in the same run.
#pragma once

namespace actionhost::bench {

void bench_images(int n);

}  // namespace actionhost::bench
