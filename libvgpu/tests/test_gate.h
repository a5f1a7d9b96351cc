/* SPDX-License-Identifier: GPL-2.0 */
/* The gate and node-list tests of test-logic-asan (test_gate.c). */
#ifndef VGPU_TEST_GATE_H
#define VGPU_TEST_GATE_H

/* Run them; 1 if one failed. */
int test_gate_all(void);

#endif
