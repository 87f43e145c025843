# The provider fakes and the runtime test harness, shared by the test areas of the cloud backends
# (tests/integration/{runloop,daytona,modal}). Included by each; defined once.
if(NOT TARGET ah_vendor_fakes)
  find_package(Poco REQUIRED COMPONENTS NetSSL)
  set(_rt ${CMAKE_SOURCE_DIR}/tests/integration/runtimes)
  add_library(ah_vendor_fakes STATIC
    ${_rt}/fakes/tunnel_proxy.cpp
    ${_rt}/fakes/tls_listener.cpp
    ${_rt}/fakes/process_box.cpp
    ${_rt}/fakes/cloud_runtime.cpp
    ${_rt}/fakes/runloop_api_fake.cpp
    ${_rt}/fakes/daytona_api_fake.cpp
    ${_rt}/runtime_harness.cpp)
  target_include_directories(ah_vendor_fakes PUBLIC ${_rt} ${_rt}/fakes)
  target_link_libraries(ah_vendor_fakes PUBLIC ah_cloud_fakes ah_test_support actionhost_client_static ah_runtime_support
    GTest::gtest Poco::NetSSL Poco::Net Poco::Zip Poco::Foundation)
endif()
