# `cpack -G DEB` in a build directory: a .deb of what a runner needs to run kernelbot (kernelbot,
# kernelbot-harness, the CUPTI injection library), installed under /usr. The package depends on
# the Debian libraries the binaries link (found by dpkg-shlibdeps) and on bubblewrap (the
# candidate sandbox). The CUDA toolkit is not a Debian package (NVIDIA installs it under
# /usr/local/cuda), so it is not a dependency: the binaries find its runtime and CUPTI through
# the RPATH of the toolkit they were built with (CMAKE_INSTALL_RPATH, set before the targets),
# and kernelbot needs that toolkit's nvcc anyway. Debug information is stripped.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME kernelbot)
set(CPACK_PACKAGE_VENDOR kernelbot)
set(CPACK_PACKAGE_CONTACT "kernelbot maintainers <maintainers@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "CI bot that finds faster, verified replacements for a repository's CUDA kernels and opens PRs")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # kernelbot_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_STRIP_FILES TRUE)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The toolkit's libraries come from no package: dpkg-shlibdeps is told where they are and asks
# for no dependency on them.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/extras/CUPTI/lib64)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "bubblewrap")
include(CPack)
