/* Tensors whose bytes live in client shared memory (issue 8): bad storage, abuse of the memory under the daemon, and libwebnn's one-copy paths. */
#include "tests/clienttest.h"
#include "tests/hostile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SEALED (F_SEAL_SHRINK | F_SEAL_GROW)

static const uint32_t st_shape[2] = { 2, 3 }; /* float32: 24 bytes, storage of 64 */

/* CreateTensor of a readable, writable float32 [2, 3] tensor with storage [off, +size) of
 * slot; the reply. */
static Webnn__Ipc__ServerMessage *st_create(struct pt_conn *c, uint32_t ctx, uint32_t id,
					    uint32_t slot, uint64_t off, uint64_t size)
{
	struct pt_tensor_msg t;
	pt_tensor_msg(&t, ctx, id, WEBNN__IPC__DATA_TYPE__FLOAT32, st_shape, 2, true, true);
	Webnn__Ipc__ShmRange r = WEBNN__IPC__SHM_RANGE__INIT;
	r.slot_id = slot;
	r.offset = off;
	r.size = size;
	t.ct.storage = &r;
	return pt_call(c, &t.m);
}

static void st_create_ok(struct pt_conn *c, uint32_t ctx, uint32_t id, uint32_t slot,
			 uint64_t off)
{
	pt_expect_ok(st_create(c, ctx, id, slot, off, 64));
}

/* WriteTensor without data: the bytes already in the storage become the contents. */
static void st_write_marker(struct pt_conn *c, uint32_t id)
{
	Webnn__Ipc__WriteTensor w = WEBNN__IPC__WRITE_TENSOR__INIT;
	w.tensor_id = id;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
	m.write_tensor = &w;
	pt_send(c, &m);
}

static Webnn__Ipc__ServerMessage *st_read_in_place(struct pt_conn *c, uint32_t id)
{
	Webnn__Ipc__ReadTensor r = WEBNN__IPC__READ_TENSOR__INIT;
	r.tensor_id = id;
	r.has_in_place = r.in_place = true;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	m.read_tensor = &r;
	return pt_call(c, &m);
}

/* A scene with the abuser connected as c, and on c context 1 with add graph 5 and x, y, z
 * (tensors 6, 7, 8) at 0, 4096, 8192 of slot 10 (a sealed 12 KiB memfd, mapped at *map); x
 * and y are written in place. */
static int st_add_scene(struct hz_scene *s, struct pt_conn *c, float **map)
{
	hz_scene_start(s, NULL);
	hz_scene_abuser(s, c, true);
	pt_create_context(c, 1);
	int fd = pt_memfd(3 * 4096, SEALED);
	pt_expect_ok(pt_register_shm(c, 10, 3 * 4096, fd));
	uint8_t *p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(p != MAP_FAILED);
	for (uint32_t i = 0; i < 3; i++)
		st_create_ok(c, 1, 6 + i, 10, 4096 * i);
	struct pt_graph g;
	pt_add_graph(&g, 1, 5);
	pt_expect_ok(pt_call(c, &g.m));
	float *x = (float *)p, *y = (float *)(p + 4096);
	for (int i = 0; i < 6; i++) {
		x[i] = (float)i;
		y[i] = 10.0f * (float)i;
	}
	st_write_marker(c, 6);
	st_write_marker(c, 7);
	*map = (float *)p;
	return fd;
}

/* z = x + y, read in place (the storage) and inline (a copy through the daemon). */
static void st_expect_sum(struct pt_conn *c, const float *z_map)
{
	pt_expect_ok(st_read_in_place(c, 8));
	const float want[6] = { 0, 11, 22, 33, 44, 55 };
	if (z_map)
		for (int i = 0; i < 6; i++)
			ASSERT_MSG(z_map[i] == want[i], "z[%d] = %g in the storage, want %g", i,
				   z_map[i], want[i]);
	pt_read_expect(c, 8, want, 6);
}

/* Bad storage: every rule of CreateTensor.storage is refused with a message naming it, and
 * the markers need storage; then good storage computes in place. */
TEST(hostile_storage_bad_memory)
{
	struct hz_scene s;
	hz_scene_start(&s, NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	int fd = pt_memfd(8192, F_SEAL_SHRINK); /* may still grow */
	pt_expect_ok(pt_register_shm(&c, 10, 8192, fd));
	pt_expect_err(st_create(&c, 1, 20, 10, 0, 64), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "storage slot 10 is not sealed with F_SEAL_SHRINK|F_SEAL_GROW");
	close(fd);
	fd = pt_memfd(8192, SEALED | F_SEAL_WRITE);
	pt_expect_ok(pt_register_shm(&c, 11, 8192, fd));
	pt_expect_err(st_create(&c, 1, 20, 11, 0, 64), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "storage slot 11 is write-sealed");
	close(fd);
	fd = pt_memfd(8192, 0);
	pt_expect_err(pt_register_shm(&c, 12, 8192, fd), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "F_SEAL_SHRINK");
	close(fd);
	fd = memfd_create("pt", MFD_CLOEXEC); /* cannot be sealed at all */
	ASSERT(fd >= 0 && ftruncate(fd, 8192) == 0);
	pt_expect_err(pt_register_shm(&c, 12, 8192, fd), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "F_SEAL_SHRINK");
	close(fd);

	fd = pt_memfd(8192, SEALED);
	pt_expect_ok(pt_register_shm(&c, 13, 8192, fd));
	pt_expect_err(st_create(&c, 1, 20, 13, 0, 32), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "storage is 32 bytes, the tensor needs 64 (its byte length 24 rounded up "
		      "to 64)");
	pt_expect_err(st_create(&c, 1, 20, 13, 32, 64), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "storage offset 32 is not a multiple of 64 bytes");
	pt_expect_err(st_create(&c, 1, 20, 13, 8192, 64), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "storage range [8192, +64) is outside slot 13 of 8192 bytes");
	pt_expect_err(st_create(&c, 1, 20, 13, UINT64_MAX - 63, 64),
		      WEBNN__IPC__STATUS__TYPE_ERROR, "is outside slot 13");

	/* A constant never lives in client memory. */
	struct pt_tensor_msg k;
	pt_tensor_msg(&k, 1, 21, WEBNN__IPC__DATA_TYPE__FLOAT32, st_shape, 2, false, false);
	float bytes[6] = { 0 };
	Webnn__Ipc__Data data = WEBNN__IPC__DATA__INIT;
	data.where_case = WEBNN__IPC__DATA__WHERE_INLINE;
	data.inline_.data = (uint8_t *)bytes;
	data.inline_.len = sizeof(bytes);
	Webnn__Ipc__ShmRange r = WEBNN__IPC__SHM_RANGE__INIT;
	r.slot_id = 13;
	r.size = 64;
	k.ct.has_constant = k.ct.constant = true;
	k.ct.data = &data;
	k.ct.storage = &r;
	pt_expect_err(pt_call(&c, &k.m), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "createConstantTensor: storage cannot be given for a constant tensor");

	/* In-place markers on a tensor the daemon keeps. */
	pt_create_tensor(&c, 1, 2, st_shape, 2);
	Webnn__Ipc__WriteTensor w = WEBNN__IPC__WRITE_TENSOR__INIT;
	w.tensor_id = 2;
	Webnn__Ipc__ClientMessage m = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	m.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_WRITE_TENSOR;
	m.write_tensor = &w;
	pt_expect_err(pt_call(&c, &m), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "writeTensor: tensor 2 has no storage in shared memory: data is required");
	pt_expect_err(st_read_in_place(&c, 2), WEBNN__IPC__STATUS__TYPE_ERROR,
		      "readTensor: tensor 2 has no storage in shared memory to read in place");

	/* Good storage: what the client writes there is the tensor, without a copy. */
	st_create_ok(&c, 1, 22, 13, 64);
	float *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(p != MAP_FAILED);
	const float v[6] = { 1, 2, 3, 4, 5, 6 };
	memcpy(p + 16, v, sizeof(v));
	st_write_marker(&c, 22);
	pt_expect_ok(st_read_in_place(&c, 22));
	pt_read_expect(&c, 22, v, 6);
	/* The storage named as its own write source and read destination: a no-op copy. */
	Webnn__Ipc__ShmRange own = WEBNN__IPC__SHM_RANGE__INIT;
	own.slot_id = 13;
	own.offset = 64;
	own.size = sizeof(v);
	Webnn__Ipc__Data od = WEBNN__IPC__DATA__INIT;
	od.where_case = WEBNN__IPC__DATA__WHERE_SHM;
	od.shm = &own;
	w.tensor_id = 22;
	w.data = &od;
	pt_expect_ok(pt_call(&c, &m));
	Webnn__Ipc__ReadTensor rd = WEBNN__IPC__READ_TENSOR__INIT;
	rd.tensor_id = 22;
	rd.dest = &own;
	Webnn__Ipc__ClientMessage rm = WEBNN__IPC__CLIENT_MESSAGE__INIT;
	rm.body_case = WEBNN__IPC__CLIENT_MESSAGE__BODY_READ_TENSOR;
	rm.read_tensor = &rd;
	pt_expect_ok(pt_call(&c, &rm));
	pt_read_expect(&c, 22, v, 6);
	munmap(p, 8192);
	close(fd);
	pt_roundtrip(&c, 1, 30, 2.0f);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* The worker's mappings of the test's memfds (pt_memfd names them "pt"). */
static int st_memfd_maps(pid_t pid)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	ASSERT(f);
	int n = 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "/memfd:pt ") != NULL;
	fclose(f);
	return n;
}

/* The slot unregistered, the client's own mapping gone and its tensors destroyed while
 * dispatches that use them are queued: the daemon holds the memory as long as they need it,
 * then lets the mapping go. */
TEST(hostile_storage_slot_gone_under_dispatch)
{
	struct hz_scene s;
	struct pt_conn c;
	float *map;
	int fd = st_add_scene(&s, &c, &map);
	ASSERT_EQ(st_memfd_maps(s.abuser_worker), 1);
	pt_unregister_shm(&c, 10);
	close(fd);
	for (int i = 0; i < 20; i++)
		pt_dispatch(&c, 1, 5, 6, 7, 8);
	st_expect_sum(&c, map + 2048); /* z at 8192 */
	/* The client unmaps its side: the daemon's mapping is its own. */
	munmap(map, 3 * 4096);
	for (int i = 0; i < 20; i++)
		pt_dispatch(&c, 1, 5, 6, 7, 8);
	st_expect_sum(&c, NULL);
	/* Destroyed with dispatches queued behind them. */
	for (int i = 0; i < 50; i++)
		pt_dispatch(&c, 1, 5, 6, 7, 8);
	pt_destroy_tensor(&c, 6);
	pt_destroy_tensor(&c, 7);
	pt_destroy_tensor(&c, 8);
	pt_flush(&c, 1);
	/* The slot's id is free again, and its mapping goes with the last tensor. */
	int fd2 = pt_memfd(4096, SEALED);
	pt_expect_ok(pt_register_shm(&c, 10, 4096, fd2));
	close(fd2);
	int now = st_memfd_maps(s.abuser_worker);
	for (double end = hz_now_ms() + 5000; now > 1 && hz_now_ms() < end; usleep(20000))
		now = st_memfd_maps(s.abuser_worker);
	ASSERT_MSG(now == 1, "the worker maps %d memfds, want 1 (the new slot 10)", now);
	pt_roundtrip(&c, 1, 30, 3.0f);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* The client tries to truncate, grow, re-seal the memory under its tensors: the seals refuse
 * the size changes and F_SEAL_WRITE (the daemon maps it writable); what it may do changes
 * nothing for the daemon, which keeps computing and serving. */
TEST(hostile_storage_resize_and_reseal)
{
	struct hz_scene s;
	struct pt_conn c;
	float *map;
	int fd = st_add_scene(&s, &c, &map);
	ASSERT(ftruncate(fd, 0) != 0 && errno == EPERM);
	ASSERT(ftruncate(fd, 4096) != 0 && errno == EPERM);
	ASSERT(ftruncate(fd, 1 << 20) != 0 && errno == EPERM);
	ASSERT(fallocate(fd, 0, 0, 1 << 20) != 0);
	/* With the client's own mapping gone, the daemon's writable one still refuses it. */
	munmap(map, 3 * 4096);
	ASSERT(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) != 0 && errno == EBUSY);
	/* Future writes sealed (new mappings read-only): existing mappings still write. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE) != 0)
		ASSERT(errno == EINVAL || errno == EBUSY);
	ASSERT(fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL) == 0);
	for (int i = 0; i < 10; i++)
		pt_dispatch(&c, 1, 5, 6, 7, 8);
	st_expect_sum(&c, NULL);
	/* A slot registered after the re-seal is read-only for the daemon: no tensor there. */
	pt_expect_ok(pt_register_shm(&c, 11, 3 * 4096, fd));
	Webnn__Ipc__ServerMessage *r = st_create(&c, 1, 20, 11, 0, 64);
	if (r->reply->error)
		ASSERT_CONTAINS(r->reply->error->message, "write-sealed");
	pt_free(r);
	close(fd);
	pt_roundtrip(&c, 1, 30, 5.0f);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* Many tensors: every slot a tensor holds is a mapping and counts against max_shm_slots even
 * after it is unregistered, so registering slot after slot for ever new tensors stops at the
 * cap; one slot may hold many tensors (one mapping). */
TEST(hostile_storage_many_tensors)
{
	struct hz_scene s;
	hz_scene_start(&s, "--limit", "max_shm_slots=8", NULL);
	struct pt_conn c;
	hz_scene_abuser(&s, &c, true);
	pt_create_context(&c, 1);
	int fd = pt_memfd(1 << 16, SEALED);
	uint32_t i = 0;
	for (;; i++) {
		ASSERT_MSG(i <= 8, "slot %u accepted past max_shm_slots=8", i + 1);
		Webnn__Ipc__ServerMessage *r = pt_register_shm(&c, 100 + i, 1 << 16, fd);
		if (r->reply->error) {
			ASSERT_CONTAINS(r->reply->error->message, "(max_shm_slots)");
			pt_free(r);
			break;
		}
		pt_free(r);
		for (uint32_t k = 0; k < 64; k++) /* 64 tensors on one mapping */
			st_create_ok(&c, 1, 1000 + i * 64 + k, 100 + i, (uint64_t)k * 1024);
		pt_unregister_shm(&c, 100 + i);
	}
	ASSERT_EQ(i, 8u);
	/* Destroying one slot's tensors gives its mapping back. */
	for (uint32_t k = 0; k < 64; k++)
		pt_destroy_tensor(&c, 1000 + k);
	pt_flush(&c, 1);
	Webnn__Ipc__ServerMessage *r = NULL;
	for (double end = hz_now_ms() + 5000; hz_now_ms() < end; usleep(20000)) {
		r = pt_register_shm(&c, 200, 1 << 16, fd);
		if (!r->reply->error)
			break;
		pt_free(r);
		r = NULL;
	}
	ASSERT_MSG(r != NULL, "the slot of 64 destroyed tensors was never given back");
	pt_free(r);
	close(fd);
	pt_roundtrip(&c, 1, 30, 6.0f);
	pt_close(&c);
	hz_scene_finish(&s);
}

/* ---- libwebnn */

static struct webnn_tensor *st_tensor(struct webnn_context *ctx, enum webnn_data_type t,
				      uint32_t rank, const uint32_t *shape, bool readable,
				      bool writable)
{
	struct webnn_tensor_desc td = { .desc = ct_desc_of(t, rank, shape),
					.readable = readable, .writable = writable };
	struct webnn_tensor *x = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &td, &x));
	return x;
}

static struct webnn_graph *st_add_graph(struct webnn_context *ctx)
{
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, st_shape);
	struct webnn_operand *y = ct_input(ctx, b, "y", WEBNN_FLOAT32, 2, st_shape);
	struct webnn_operand *z;
	OK(ctx, webnn_builder_add(b, x, y, &z));
	struct webnn_named_operand out = { "z", z };
	struct webnn_graph *g;
	OK(ctx, webnn_builder_build(b, &out, 1, &g));
	webnn_builder_destroy(b);
	return g;
}

static void st_dispatch_add(struct webnn_context *ctx, struct webnn_graph *g,
			    struct webnn_tensor *x, struct webnn_tensor *y, struct webnn_tensor *z)
{
	struct webnn_named_tensor in[] = { { "x", x }, { "y", y } }, out[] = { { "z", z } };
	OK(ctx, webnn_context_dispatch(ctx, g, in, 2, out, 1));
}

static void st_expect(struct webnn_context *ctx, struct webnn_tensor *t, const float *want)
{
	float got[6];
	OK(ctx, webnn_context_read_tensor(ctx, t, got, sizeof(got)));
	for (int i = 0; i < 6; i++)
		ASSERT_MSG(got[i] == want[i], "element %d: got %g, want %g", i, got[i], want[i]);
}

/* webnnd on one backend; OpenCL tests skip where no OpenCL device is. */
static void st_daemon(struct test_daemon *d, const char *backend)
{
	const char *const args[] = { "--backend", backend, NULL };
	ct_require_webnnd();
	if (strcmp(backend, "opencl") == 0 && !test_have_opencl())
		SKIP("no OpenCL device");
	test_daemon_start(d, args);
}

/* Writes while a dispatch may still use the tensor take the staged path; the results are the
 * ones of timeline order either way. */
static void write_busy_on(const char *backend)
{
	struct test_daemon d;
	st_daemon(&d, backend);
	struct webnn_context *ctx = ct_connect(&d, "storage");
	struct webnn_graph *g = st_add_graph(ctx);
	struct webnn_tensor *x = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, true, true);
	struct webnn_tensor *y = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, true, true);
	struct webnn_tensor *z = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, true, true);
	struct webnn_tensor *z2 = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, true, true);
	const float a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 10, 20, 30, 40, 50, 60 };
	const float a2[6] = { -1, -2, -3, -4, -5, -6 };
	OK(ctx, webnn_context_write_tensor(ctx, x, a, sizeof(a)));
	OK(ctx, webnn_context_write_tensor(ctx, y, b, sizeof(b)));
	for (int round = 0; round < 20; round++) {
		st_dispatch_add(ctx, g, x, y, z);
		OK(ctx, webnn_context_write_tensor(ctx, x, a2, sizeof(a2))); /* x is busy */
		st_dispatch_add(ctx, g, x, y, z2);
		OK(ctx, webnn_context_write_tensor(ctx, x, a, sizeof(a)));
		const float s1[6] = { 11, 22, 33, 44, 55, 66 }, s2[6] = { 9, 18, 27, 36, 45, 54 };
		st_expect(ctx, z, s1);
		st_expect(ctx, z2, s2);
		st_expect(ctx, x, a); /* the last write, done in place after the reads */
	}
	webnn_tensor_destroy(x);
	webnn_tensor_destroy(y);
	webnn_tensor_destroy(z);
	webnn_tensor_destroy(z2);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

TEST(storage_client_write_busy_tensor)
{
	write_busy_on("reference");
}

TEST_TIMEOUT(storage_client_write_busy_tensor_opencl, 240)
{
	write_busy_on("opencl");
}

/* The device-buffer path of discrete GPUs (clEnqueueWrite/ReadBuffer at the markers), forced
 * on a host-unified device. */
TEST_TIMEOUT(storage_client_write_busy_tensor_opencl_copy, 240)
{
	setenv("WEBNN_OCL_STORAGE_COPY", "1", 1);
	write_busy_on("opencl");
}

/* webnn_tensor_map/unmap: ordered like reads and writes, exclusive with other uses. */
TEST(storage_client_map_unmap)
{
	struct test_daemon d;
	ct_daemon_up(&d);
	struct webnn_context *ctx = ct_connect(&d, "storage");
	struct webnn_graph *g = st_add_graph(ctx);
	struct webnn_tensor *x = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, false, true);
	struct webnn_tensor *y = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, true, true);
	struct webnn_tensor *z = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, true, false);
	void *p = NULL;
	size_t n = 0;
	OK(ctx, webnn_tensor_map(x, &p, &n));
	ASSERT_EQ(n, 24u);
	for (int i = 0; i < 6; i++)
		((float *)p)[i] = (float)i;
	FAILS(ctx, webnn_tensor_map(x, &p, &n), WEBNN_STATUS_INVALID_STATE, "is already mapped");
	struct webnn_named_tensor in[] = { { "x", x }, { "y", y } }, out[] = { { "z", z } };
	FAILS(ctx, webnn_context_dispatch(ctx, g, in, 2, out, 1), WEBNN_STATUS_INVALID_STATE,
	      "dispatch: input \"x\": tensor");
	ASSERT_CONTAINS(webnn_context_last_error(ctx), "is mapped (webnn_tensor_unmap it first)");
	const float ones[6] = { 1, 1, 1, 1, 1, 1 };
	FAILS(ctx, webnn_context_write_tensor(ctx, x, ones, sizeof(ones)),
	      WEBNN_STATUS_INVALID_STATE, "writeTensor: tensor");
	OK(ctx, webnn_tensor_unmap(x));
	FAILS(ctx, webnn_tensor_unmap(x), WEBNN_STATUS_INVALID_STATE, "is not mapped");
	OK(ctx, webnn_context_write_tensor(ctx, y, ones, sizeof(ones)));
	st_dispatch_add(ctx, g, x, y, z);
	/* A readable mapping shows the result once the dispatch is done. */
	OK(ctx, webnn_tensor_map(z, &p, &n));
	for (int i = 0; i < 6; i++)
		ASSERT_MSG(((float *)p)[i] == (float)i + 1, "z[%d] = %g", i, ((float *)p)[i]);
	float got[6];
	FAILS(ctx, webnn_context_read_tensor(ctx, z, got, sizeof(got)), WEBNN_STATUS_INVALID_STATE,
	      "readTensor: tensor");
	OK(ctx, webnn_tensor_unmap(z));
	/* A read-write mapping: what is left there is y for the next dispatch. */
	OK(ctx, webnn_tensor_map(y, &p, &n));
	for (int i = 0; i < 6; i++)
		ASSERT(((float *)p)[i] == 1.0f);
	((float *)p)[5] = 100;
	OK(ctx, webnn_tensor_unmap(y));
	st_dispatch_add(ctx, g, x, y, z);
	const float want[6] = { 1, 2, 3, 4, 5, 105 };
	st_expect(ctx, z, want);
	FAILS(ctx, webnn_tensor_map(NULL, &p, &n), WEBNN_STATUS_TYPE_ERROR, "");
	webnn_tensor_destroy(x);
	webnn_tensor_destroy(y);
	webnn_tensor_destroy(z);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* More tensors than the slot cap allows: the rest live in the daemon and behave the same
 * (writes, reads and map through a copy). */
TEST(storage_client_beyond_slot_cap)
{
	struct test_daemon d;
	static const char *const args[] = { "--backend", "reference", "--limit",
					    "max_shm_slots=8", NULL };
	ct_require_webnnd();
	test_daemon_start(&d, args);
	struct webnn_context *ctx = ct_connect(&d, "storage");
	struct webnn_graph *g = st_add_graph(ctx);
	enum { N = 24 };
	struct webnn_tensor *t[N];
	for (int i = 0; i < N; i++) {
		t[i] = st_tensor(ctx, WEBNN_FLOAT32, 2, st_shape, true, true);
		float v[6];
		for (int k = 0; k < 6; k++)
			v[k] = (float)(i * 10 + k);
		OK(ctx, webnn_context_write_tensor(ctx, t[i], v, sizeof(v)));
	}
	for (int i = 0; i + 2 < N; i += 3)
		st_dispatch_add(ctx, g, t[i], t[i + 1], t[i + 2]);
	for (int i = 0; i + 2 < N; i += 3) {
		float want[6];
		for (int k = 0; k < 6; k++)
			want[k] = (float)(i * 10 + k) + (float)((i + 1) * 10 + k);
		st_expect(ctx, t[i + 2], want);
	}
	void *p;
	size_t n;
	OK(ctx, webnn_tensor_map(t[N - 1], &p, &n)); /* without storage: a copy */
	((float *)p)[0] = 7;
	OK(ctx, webnn_tensor_unmap(t[N - 1]));
	float got[6];
	OK(ctx, webnn_context_read_tensor(ctx, t[N - 1], got, sizeof(got)));
	ASSERT(got[0] == 7);
	for (int i = 0; i < N; i++)
		webnn_tensor_destroy(t[i]);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	test_daemon_stop(&d);
}

/* A thread scribbles random bytes into index tensors while gathers and scatters run on them:
 * the kernels load each index once and check it, so the daemon neither crashes nor reads out
 * of bounds (run it under ASan too); results are the client's problem. */
struct scribble {
	uint8_t *p[5];
	size_t n[5];
	atomic_bool stop;
};

static void *scribbler(void *arg)
{
	struct scribble *s = arg;
	unsigned seed = 12345;
	while (!atomic_load(&s->stop))
		for (int k = 0; k < 5; k++)
			for (size_t i = 0; i < s->n[k]; i++)
				s->p[k][i] = (uint8_t)(rand_r(&seed) >> 7);
	return NULL;
}

static void scribble_on(const char *backend)
{
	struct test_daemon d;
	st_daemon(&d, backend);
	struct webnn_context *ctx = ct_connect(&d, "scribbler");
	struct webnn_builder *b;
	OK(ctx, webnn_builder_create(ctx, &b));
	const uint32_t xs[2] = { 8, 4 }, i1[1] = { 16 }, ie[2] = { 8, 4 }, ind[2] = { 6, 2 };
	const uint32_t ise[2] = { 2, 4 }, isn[2] = { 3, 1 }, us[2] = { 3, 4 };
	struct webnn_operand *x = ct_input(ctx, b, "x", WEBNN_FLOAT32, 2, xs);
	struct webnn_operand *g1 = ct_input(ctx, b, "gi", WEBNN_INT32, 1, i1);
	struct webnn_operand *ge = ct_input(ctx, b, "ge", WEBNN_INT32, 2, ie);
	struct webnn_operand *gn = ct_input(ctx, b, "gn", WEBNN_INT32, 2, ind);
	struct webnn_operand *se = ct_input(ctx, b, "se", WEBNN_INT32, 2, ise);
	struct webnn_operand *sn = ct_input(ctx, b, "sn", WEBNN_INT32, 2, isn);
	struct webnn_operand *ue = ct_input(ctx, b, "ue", WEBNN_FLOAT32, 2, ise);
	struct webnn_operand *un = ct_input(ctx, b, "un", WEBNN_FLOAT32, 2, us);
	struct webnn_operand *o[5];
	struct webnn_gather_options go = WEBNN_GATHER_OPTIONS_INIT;
	struct webnn_scatter_options so = WEBNN_SCATTER_OPTIONS_INIT;
	OK(ctx, webnn_builder_gather(b, x, g1, &go, &o[0]));
	OK(ctx, webnn_builder_gather_elements(b, x, ge, &go, &o[1]));
	OK(ctx, webnn_builder_gather_nd(b, x, gn, &o[2]));
	OK(ctx, webnn_builder_scatter_elements(b, x, se, ue, &so, &o[3]));
	OK(ctx, webnn_builder_scatter_nd(b, x, sn, un, &o[4]));
	struct webnn_named_operand outs[5] = { { "o0", o[0] }, { "o1", o[1] }, { "o2", o[2] },
					       { "o3", o[3] }, { "o4", o[4] } };
	struct webnn_graph *g = NULL;
	enum webnn_status st = webnn_builder_build(b, outs, 5, &g);
	if (st == WEBNN_STATUS_NOT_SUPPORTED)
		SKIP("%s: %s", backend, webnn_context_last_error(ctx));
	OK(ctx, st);
	webnn_builder_destroy(b);

	const char *in_names[8] = { "x", "gi", "ge", "gn", "se", "sn", "ue", "un" };
	struct webnn_named_tensor bin[8], bout[5];
	struct webnn_tensor *tin[8], *tout[5];
	struct scribble sc = { .stop = false };
	for (int i = 0; i < 8; i++) {
		struct webnn_operand_desc dd;
		size_t k = 0;
		while (strcmp(webnn_graph_input_name(g, k, &dd), in_names[i]) != 0)
			k++;
		struct webnn_tensor_desc td = { .desc = dd, .writable = true, .readable = true };
		OK(ctx, webnn_context_create_tensor(ctx, &td, &tin[i]));
		bin[i] = (struct webnn_named_tensor){ in_names[i], tin[i] };
		void *p;
		size_t n;
		OK(ctx, webnn_tensor_map(tin[i], &p, &n));
		memset(p, 0, n);
		OK(ctx, webnn_tensor_unmap(tin[i]));
		/* The pointer of an index tensor is kept past unmap: what a hostile client does. */
		if (i >= 1 && i <= 5) {
			sc.p[i - 1] = p;
			sc.n[i - 1] = n;
		}
	}
	for (int i = 0; i < 5; i++) {
		struct webnn_operand_desc dd;
		webnn_graph_output_name(g, (size_t)i, &dd);
		struct webnn_tensor_desc td = { .desc = dd, .readable = true };
		OK(ctx, webnn_context_create_tensor(ctx, &td, &tout[i]));
		bout[i] = (struct webnn_named_tensor){ webnn_graph_output_name(g, (size_t)i, NULL),
						       tout[i] };
	}
	pthread_t th;
	ASSERT(pthread_create(&th, NULL, scribbler, &sc) == 0);
	float out[64];
	for (int round = 0; round < 150; round++) {
		OK(ctx, webnn_context_dispatch(ctx, g, bin, 8, bout, 5));
		/* Results may be anything, or an error naming a bad index: never a crash. */
		webnn_context_read_tensor(ctx, tout[round % 5], out,
					  round % 5 == 0 ? 16 * 4 * 4 : round % 5 == 2 ? 6 * 4 : 32 * 4);
	}
	atomic_store(&sc.stop, true);
	pthread_join(th, NULL);
	webnn_context_flush(ctx);
	ASSERT_MSG(!webnn_context_is_lost(ctx), "the context was lost: %s",
		   webnn_context_last_error(ctx));
	for (int i = 0; i < 8; i++)
		webnn_tensor_destroy(tin[i]);
	for (int i = 0; i < 5; i++)
		webnn_tensor_destroy(tout[i]);
	webnn_graph_destroy(g);
	webnn_context_destroy(ctx);
	/* The daemon is whole: a new client works. */
	struct webnn_context *other = ct_connect(&d, "bystander");
	struct webnn_graph *ag = st_add_graph(other);
	struct webnn_tensor *x1 = st_tensor(other, WEBNN_FLOAT32, 2, st_shape, true, true);
	struct webnn_tensor *y1 = st_tensor(other, WEBNN_FLOAT32, 2, st_shape, true, true);
	struct webnn_tensor *z1 = st_tensor(other, WEBNN_FLOAT32, 2, st_shape, true, true);
	const float a[6] = { 1, 2, 3, 4, 5, 6 }, twice[6] = { 2, 4, 6, 8, 10, 12 };
	OK(other, webnn_context_write_tensor(other, x1, a, sizeof(a)));
	OK(other, webnn_context_write_tensor(other, y1, a, sizeof(a)));
	st_dispatch_add(other, ag, x1, y1, z1);
	st_expect(other, z1, twice);
	webnn_tensor_destroy(x1);
	webnn_tensor_destroy(y1);
	webnn_tensor_destroy(z1);
	webnn_graph_destroy(ag);
	webnn_context_destroy(other);
	test_daemon_stop(&d);
}

TEST_TIMEOUT(storage_scribbled_indices_reference, 240)
{
	scribble_on("reference");
}

TEST_TIMEOUT(storage_scribbled_indices_cpu, 240)
{
	scribble_on("cpu");
}

TEST_TIMEOUT(storage_scribbled_indices_opencl, 240)
{
	scribble_on("opencl");
}
