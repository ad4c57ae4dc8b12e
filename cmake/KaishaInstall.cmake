# What `cmake --install` and `cpack -G DEB` install (docs/library.md):
#   bin/kaisha
#   lib/libkaisha_*.a           every library of the project (KAISHA_LIBRARIES)
#   include/kaisha/*.hpp        the public API
#   include/kaisha/internal/    the headers those include, in the source layout
#   share/kaisha/{prompts,data,web} what kaisha reads at run time (data_paths.hpp)
#   share/doc/kaisha/           LICENSE, THIRD_PARTY.md
#   lib/cmake/kaisha/           the CMake package: find_package(kaisha CONFIG)
#                               gives kaisha::kaisha (the public API and all
#                               it links) and kaisha::kaisha_<part>
include(CMakePackageConfigHelpers)

set(KAISHA_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kaisha)

get_property(_kaisha_libs GLOBAL PROPERTY KAISHA_LIBRARIES)
set_target_properties(kaisha_api PROPERTIES EXPORT_NAME kaisha)
add_library(kaisha::kaisha ALIAS kaisha_api)

install(TARGETS kaisha RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${_kaisha_libs} EXPORT kaishaTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT kaishaTargets NAMESPACE kaisha:: DESTINATION ${KAISHA_CMAKE_DIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kaisha DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(_layer runtime transport protocols actors cluster)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${_layer} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kaisha/internal
          FILES_MATCHING PATTERN "*.hpp")
endforeach()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/prompts ${PROJECT_SOURCE_DIR}/data DESTINATION ${CMAKE_INSTALL_DATADIR}/kaisha)
# The dashboard of `kaisha serve --http` (web/dashboard: its page, scripts and styles).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/web DESTINATION ${CMAKE_INSTALL_DATADIR}/kaisha)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/THIRD_PARTY.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kaishaConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/kaishaConfig.cmake INSTALL_DESTINATION ${KAISHA_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kaishaConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kaishaConfig.cmake ${PROJECT_BINARY_DIR}/kaishaConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FindCAF.cmake DESTINATION ${KAISHA_CMAKE_DIR})

# cpack -G DEB (scripts/check_deb.sh). The package installs under
# KAISHA_PACKAGE_PREFIX (/usr), whatever CMAKE_INSTALL_PREFIX is; data_root()
# looks for share/kaisha there too.
set(CPACK_PACKAGE_NAME kaisha)
set(CPACK_PACKAGE_VENDOR "kaisha")
set(CPACK_PACKAGE_CONTACT "kaisha maintainers <kaisha@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "A company of LLM agents: runtime, command and C++ library")
set(CPACK_PACKAGING_INSTALL_PREFIX ${KAISHA_PACKAGE_PREFIX})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The shared libraries the binary links, found by dpkg-shlibdeps; the sandbox
# runs tools with python3 under bubblewrap.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, bubblewrap")
# What a program that builds against the package needs (find_dependency in
# kaishaConfig.cmake).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "cmake, pkg-config, g++, libcaf-dev, libzmq3-dev, cppzmq-dev, libmsgpack-cxx-dev, libcurl4-openssl-dev, libsqlite3-dev, libssl-dev, nlohmann-json3-dev, libyaml-cpp-dev, libcpp-httplib-dev, libhnswlib-dev, libgrpc++-dev, libprotobuf-dev")
include(CPack)

# Everything `cmake --install` copies, so that one target builds it all
# (scripts/check_embed.sh) without the tests.
add_custom_target(kaisha_install_set)
add_dependencies(kaisha_install_set kaisha ${_kaisha_libs})
