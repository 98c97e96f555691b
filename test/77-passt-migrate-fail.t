#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 77-passt-migrate-fail.t - test/76-passt-migrate.t's guest, moved to a
# target that refuses our state: QEMU fails the migration, and the guest
# goes on on the source with its connections (MIGRATE_FAIL=1 there)

MIGRATE_FAIL=1 exec "$(dirname "$0")/76-passt-migrate.t" "$@"
