/* SPDX-License-Identifier: GPL-2.0 */
/* The gate and node-list tests (test_gate.c) and the queue bound's
 * (test_queue.c) of test-logic-asan. */
#ifndef VGPU_TEST_GATE_H
#define VGPU_TEST_GATE_H

/* Run them; 1 if one failed. */
int test_gate_all(void);
int test_queue_all(void);

#endif
