// libseat: opens the DRM card through seatd or logind for an ordinary user, and tells the
// compositor when the seat is taken away (a VT switch) and given back.
#include <libseat.h>
