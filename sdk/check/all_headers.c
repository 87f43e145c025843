/* Every header of the SDK in a C translation unit: the build compiles this file as C99 and as C11
 * (-Wpedantic -Werror), so a C++-only construct or a newer C feature cannot slip into the ABI. */
#include <actionhost/abi.h>
#include <actionhost/actionhost.h>
#include <actionhost/ext/http_response_headers.h>
#include <actionhost/ext/http_routes.h>
#include <actionhost/ext/policy.h>
#include <actionhost/ext/http_stream_routes.h>
#include <actionhost/ext/json.h>
#include <actionhost/ext/partial_streams.h>
#include <actionhost/ext/runtime_images.h>
#include <actionhost/ext/runtime_in_process.h>
#include <actionhost/ext/runtime_network.h>
#include <actionhost/ext/runtime_ports.h>
#include <actionhost/ext/runtime_reclaim.h>
#include <actionhost/ext/runtime_recovery.h>
#include <actionhost/ext/runtime_snapshot.h>
#include <actionhost/host.h>
#include <actionhost/plugin.h>
#include <actionhost/runtime.h>

/* Uses one name of each header so the unit is not empty. */
size_t actionhost_sdk_check_sizes(void) {
    return sizeof(ah_host_t) + sizeof(ah_plugin_t) + sizeof(ah_runtime_t) + sizeof(ah_ext_http_routes_t) +
           sizeof(ah_ext_http_stream_routes_t) + sizeof(ah_ext_runtime_in_process_t) + sizeof(ah_ext_runtime_reclaim_t) +
           sizeof(ah_ext_partial_streams_t) + sizeof(ah_ext_runtime_images_t) + sizeof(ah_ext_runtime_snapshot_t) +
           sizeof(ah_ext_runtime_ports_t) + sizeof(ah_ext_runtime_network_t) + sizeof(ah_ext_json_t);
}
