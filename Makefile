# A thin front for the two README commands; CMake does the real work.
#   make demo   build, then run the main job on examples/ (the tunable-macros example) and on
#               examples/production/ (production-style code) (needs a GPU; says so without one)
#   make test   build, then run the test suite except the gpu-labelled tests
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
KERNELBOT := $(BUILD_DIR)/bot/kernelbot

.PHONY: all build demo test gpu-test clean

all: build

build:
	@scripts/bootstrap.sh
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	cd examples && $(abspath $(KERNELBOT)) run
	cd examples/production && $(abspath $(KERNELBOT)) run

test: build
	cd $(BUILD_DIR) && ctest -LE gpu --output-on-failure -j $(JOBS)

gpu-test: build
	cd $(BUILD_DIR) && ctest -L gpu --output-on-failure

clean:
	rm -rf $(BUILD_DIR)
