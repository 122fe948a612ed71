// giflib: GIF files, read record by record (DGifGetRecordType, DGifGetImageDesc, DGifGetLine,
// DGifGetExtension) so each frame's size is checked before anything is allocated for it, which
// DGifSlurp does not allow. giflib has no pkg-config file on Debian: the module map links it.
#pragma once
#include <gif_lib.h>
