/* actionhost SDK — everything a module needs. */
#ifndef ACTIONHOST_ACTIONHOST_H
#define ACTIONHOST_ACTIONHOST_H
#include "abi.h"
#include "host.h"
#include "plugin.h"
#include "runtime.h"
#include "ext/http_routes.h"
#endif
