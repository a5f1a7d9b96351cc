# SPDX-License-Identifier: GPL-2.0
#
# vgpu: share GPUs between tenants, safely and fairly.
#
#   make            build vgpu.ko (in build/kmod/RELEASE/), ctl/vgpuctl,
#                   libvgpu/libvgpu.so, the test instruments (simgpu) and
#                   the Kubernetes DRA kubelet plugin
#                   (build/k8s/vgpu-kubelet-plugin)
#   make k8s        build the DRA kubelet plugin alone (Go, k8s/)
#   make demo       boot a VM with the module loaded and tenants sharing
#                   simulated GPUs
#   make check      run every test (last line: "N passed, N failed")
#   make install    install the module, vgpuctl, libvgpu, the man page,
#                   vgpu.service, vgpu-agent.service and
#                   /etc/vgpu/vgpu.conf (kept if present)
#   make deps       install what building and testing needs (as root)
#   make bench      run the benchmarks (bench/) in the VM and print them
#   make realgpu-check  libvgpu against this host's NVIDIA driver (simgpu
#                   where there is none): tests/realgpu/run, realgpu.md
#   make dkms-install  copy the module's sources to /usr/src/vgpu-VERSION
#   make deb        build the Debian packages (dpkg-buildpackage) into build/deb
#   make check-install  make deb, then install the packages on a Debian 12
#                   image in a VM and test the service there
#                   (tests/install/run; make check runs it too)
#
# The kernel: KVER=RELEASE (e.g. 6.12.117+deb12-amd64) or KDIR=DIR; by
# default the running kernel's headers, else the newest Debian headers in
# the supported range (tools/kdir). make check tests a kernel of every
# Debian series from 6.1 to 7.3 (tools/kernels: Debian 12's installed, the
# newer ones fetched into build/kernels/ and built for in a trixie root,
# build/chroot/), or only KVER's when it is set.

PREFIX ?= /usr/local
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_SRC = $(DESTDIR)/usr/src/vgpu-$(VERSION)
DESTDIR ?=
SBINDIR ?= $(PREFIX)/sbin
LIBDIR ?= $(PREFIX)/lib
MODPROBE ?= /sbin/modprobe
# Units of a /usr installation (a package) go with the system's; others
# in /etc/systemd/system.
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,/etc/systemd/system)
# NVIDIA's headers: the pinned wheels make deps unpacks (tools/nvidia.lock),
# or your own toolkit's (CUDA_INC=DIR with cuda.h and cudaTypedefs.h,
# NVML_INC=DIR with nvml.h).
CUDA_DEPS := build/deps/cuda
ifeq ($(origin CUDA_INC)$(origin NVML_INC),undefinedundefined)
HEADERS := $(CUDA_DEPS)/.lock
endif
CUDA_INC ?= $(CURDIR)/$(CUDA_DEPS)/include
NVML_INC ?= $(CUDA_INC)

export KDIR KVER PREFIX DESTDIR SBINDIR LIBDIR CUDA_INC NVML_INC

.PHONY: all module ctl libvgpu simgpu k8s deps check demo bench dmem-kernel install clean \
	modules_install dkms-install install-service deb check-install realgpu-check

all: module ctl libvgpu simgpu k8s

module:
	@tools/kmod-build modules

ctl: $(HEADERS)
	$(MAKE) -C ctl

libvgpu: $(HEADERS)
	$(MAKE) -C libvgpu

simgpu: $(HEADERS)
	$(MAKE) -C tests/simgpu
	$(MAKE) -C tests/clients

# The DRA kubelet plugin: its modules come through the Go module proxy
# (GOPROXY) and must match k8s/go.sum (go mod verify, and -mod=readonly:
# a build never edits go.mod or go.sum). GOTOOLCHAIN=local: the go found
# builds, or says it is older than k8s/go.mod's go line (tools/go-check).
K8S_GO = cd k8s && GOFLAGS=-mod=readonly GOTOOLCHAIN=local go
k8s:
	$(K8S_GO) mod verify
	$(K8S_GO) build -trimpath -ldflags='-s -w' -o ../build/k8s/vgpu-kubelet-plugin ./cmd/vgpu-kubelet-plugin

# A changed lock fetches the wheels again.
$(CUDA_DEPS)/.lock: tools/nvidia.lock
	tools/nvidia-deps $(CUDA_DEPS)
	touch $@

# The default header directories are make deps' own to fill, not a
# user's toolkit: tools/deps sees CUDA_INC and NVML_INC only when given.
deps:
	$(if $(HEADERS),env -u CUDA_INC -u NVML_INC) tools/deps

# PyTorch's venv and VM disk (tools/torch-deps: 3 GB to download the
# first time, nothing after) for the suites that run it; not make deps',
# which make demo runs too.
check: deps
	tools/torch-deps
	$(MAKE) -j$$(nproc) all
	tests/run

demo: deps
	$(MAKE) -j$$(nproc) all
	tests/vm/run tests/vm/demo.sh

bench: deps
	bench/run

# Not after deps: a GPU host may have no network; what the run needs
# travels with the tree (Documentation/realgpu.md), and its build step
# brings the binaries up to date where make and cc are.
realgpu-check:
	tests/realgpu/run

# The kernel with the dmem controller the dmem suites boot (make deps
# builds it too): built once a machine, cached outside the clone.
dmem-kernel:
	tools/dmem-kernel

modules_install:
	INSTALL_MOD_DIR=extra tools/kmod-build modules_install

# What DKMS builds from: the module's sources, generated ones included.
dkms-install:
	rm -rf "$(DKMS_SRC)"
	install -d "$(DKMS_SRC)/kmod" "$(DKMS_SRC)/uapi"
	install -m 0644 dkms.conf Kbuild "$(DKMS_SRC)/"
	install -m 0644 kmod/Kbuild kmod/*.c kmod/*.h "$(DKMS_SRC)/kmod/"
	install -m 0644 uapi/*.h "$(DKMS_SRC)/uapi/"
	@echo "copied to $(DKMS_SRC); now: dkms install vgpu/$(VERSION) [-k RELEASE]"

install: modules_install install-service
	$(MAKE) -C ctl install
	$(MAKE) -C libvgpu install

# vgpu.service and vgpu-agent.service (their paths filled in), the
# configuration directory and an
# example /etc/vgpu/vgpu.conf, which never replaces one already there.
install-service:
	install -d "$(DESTDIR)$(UNITDIR)" "$(DESTDIR)/etc/vgpu/conf.d"
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@MODPROBE@|$(MODPROBE)|g' \
		dist/vgpu.service.in > "$(DESTDIR)$(UNITDIR)/vgpu.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/vgpu.service"
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' \
		dist/vgpu-agent.service.in > "$(DESTDIR)$(UNITDIR)/vgpu-agent.service"
	chmod 0644 "$(DESTDIR)$(UNITDIR)/vgpu-agent.service"
	[ -e "$(DESTDIR)/etc/vgpu/vgpu.conf" ] || \
		install -m 0644 dist/vgpu.conf "$(DESTDIR)/etc/vgpu/vgpu.conf"

# The Debian packages (vgpu-dkms, vgpuctl, libvgpu), built from this tree
# into build/deb/ (debian/; dpkg-buildpackage leaves them in the parent
# directory, so the tree is copied first).
deb:
	tools/build-deb

check-install: deb
	tests/install/run

clean:
	$(MAKE) -C ctl clean
	$(MAKE) -C libvgpu clean
	$(MAKE) -C tests/simgpu clean
	$(MAKE) -C tests/clients clean
	$(MAKE) -C bench clean
	$(MAKE) -C tests/realgpu clean
	$(MAKE) -C tests/fuzz clean
	rm -rf build/asan build/vm build/kmod build/k8s
