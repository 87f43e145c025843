# The client SDK as an installed package: libactionhost_client.so with a SOVERSION, its headers
# (include/actionhost/client/) and the CMake package a program finds with find_package(ActionHostClient),
# laid out as the plugin SDK's package is (sdk/CMakeLists.txt). Component "client"; the shared library
# itself is also part of "runtime".
#
# The library's C++ API has no struct_size to grow by: while the project's major version is 0, any minor
# release may change a class or a signature, so the soname carries MAJOR.MINOR and the package accepts
# only the same MAJOR.MINOR.
set(AH_CLIENT_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
set_target_properties(actionhost_client PROPERTIES
  VERSION ${PROJECT_VERSION} SOVERSION ${AH_CLIENT_SOVERSION} EXPORT_NAME client)
target_include_directories(actionhost_client INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
add_library(ActionHostClient::client ALIAS actionhost_client)

install(TARGETS actionhost_client EXPORT ActionHostClientTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT client)
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/actionhost/client
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/actionhost COMPONENT client)
set(AH_CLIENT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ActionHostClient)
install(EXPORT ActionHostClientTargets NAMESPACE ActionHostClient:: DESTINATION ${AH_CLIENT_CMAKE_DIR} COMPONENT client)
include(CMakePackageConfigHelpers)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ActionHostClientConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ActionHostClientConfig.cmake INSTALL_DESTINATION ${AH_CLIENT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ActionHostClientConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ActionHostClientConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ActionHostClientConfigVersion.cmake
  DESTINATION ${AH_CLIENT_CMAKE_DIR} COMPONENT client)
