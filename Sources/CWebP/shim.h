// libwebp: still WebP images (WebPGetFeatures, WebPDecodeRGBA) and, through libwebpdemux,
// animated ones (WebPAnimDecoder composes each frame onto the canvas itself).
#pragma once
#include <webp/decode.h>
#include <webp/demux.h>
