/* Shared helpers for the libwebnn tests that run against a reference-backend webnnd. */
#include "tests/clienttest.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

void ct_require_webnnd(void)
{
	char bin[4096];
	snprintf(bin, sizeof(bin), "%s/bin/webnnd", test_build_dir());
	if (access(bin, X_OK) != 0)
		SKIP("%s is not built", bin);
}

void ct_daemon_up(struct test_daemon *d)
{
	static const char *const args[] = { "--backend", "reference", NULL };
	ct_require_webnnd();
	test_daemon_start(d, args);
}

struct webnn_context *ct_connect(const struct test_daemon *d, const char *client_name)
{
	struct webnn_context_options o = WEBNN_CONTEXT_OPTIONS_INIT;
	o.socket_path = d->socket_path;
	o.client_name = client_name;
	struct webnn_context *ctx = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_context_create(&o, &ctx, err, sizeof(err));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "webnn_context_create: %s: %s", webnn_status_name(s), err);
	ASSERT(ctx != NULL);
	return ctx;
}

/* ---- building and running small graphs */

struct webnn_operand_desc ct_desc_of(enum webnn_data_type t, uint32_t rank,
				      const uint32_t *shape)
{
	struct webnn_operand_desc d = { t, rank, { 0 } };
	for (uint32_t i = 0; i < rank; i++)
		d.shape[i] = shape[i];
	return d;
}

struct webnn_operand *ct_input(struct webnn_context *ctx, struct webnn_builder *b,
			       const char *name, enum webnn_data_type t, uint32_t rank,
			       const uint32_t *shape)
{
	struct webnn_operand_desc d = { t, rank, { 0 } };
	for (uint32_t i = 0; i < rank; i++)
		d.shape[i] = shape[i];
	struct webnn_operand *o = NULL;
	OK(ctx, webnn_builder_input(b, name, &d, &o));
	return o;
}

struct webnn_operand *ct_const(struct webnn_context *ctx, struct webnn_builder *b,
			       enum webnn_data_type t, uint32_t rank, const uint32_t *shape,
			       const void *data)
{
	struct webnn_operand_desc d = { t, rank, { 0 } };
	size_t n = 1;
	for (uint32_t i = 0; i < rank; i++) {
		d.shape[i] = shape[i];
		n *= shape[i];
	}
	struct webnn_operand *o = NULL;
	OK(ctx, webnn_builder_constant(b, &d, data, webnn_data_type_byte_length(t, n), &o));
	return o;
}

size_t ct_bytes(const struct webnn_operand_desc *d)
{
	size_t n = 1;
	for (uint32_t i = 0; i < d->rank; i++)
		n *= d->shape[i];
	return webnn_data_type_byte_length(d->data_type, n);
}

void ct_dispatch_one(struct webnn_context *ctx, struct webnn_graph *g, const char *x_name,
		     const struct webnn_operand_desc *x_desc, const void *x, const char *y_name,
		     const struct webnn_operand_desc *y_desc, void *y)
{
	struct webnn_tensor_desc xd = { .desc = *x_desc, .writable = true },
				 yd = { .desc = *y_desc, .readable = true };
	struct webnn_tensor *tx = NULL, *ty = NULL;
	OK(ctx, webnn_context_create_tensor(ctx, &xd, &tx));
	OK(ctx, webnn_context_create_tensor(ctx, &yd, &ty));
	OK(ctx, webnn_context_write_tensor(ctx, tx, x, ct_bytes(x_desc)));
	struct webnn_named_tensor in = { x_name, tx }, out = { y_name, ty };
	OK(ctx, webnn_context_dispatch(ctx, g, &in, 1, &out, 1));
	OK(ctx, webnn_context_read_tensor(ctx, ty, y, ct_bytes(y_desc)));
	webnn_tensor_destroy(tx);
	webnn_tensor_destroy(ty);
}

void ct_run(struct webnn_context *ctx, struct webnn_builder *b, const char *what,
	    const struct ct_io *inputs, size_t n_in, const struct ct_io *outputs, size_t n_out)
{
	struct webnn_named_operand named[8];
	struct webnn_named_tensor bind_in[8], bind_out[8];
	struct webnn_tensor *tensors[16] = { 0 };
	ASSERT(n_in <= 8 && n_out <= 8);
	for (size_t i = 0; i < n_out; i++)
		named[i] = (struct webnn_named_operand){ outputs[i].name, outputs[i].operand };
	struct webnn_graph *g = NULL;
	enum webnn_status s = webnn_builder_build(b, named, n_out, &g);
	if (s == WEBNN_STATUS_NOT_SUPPORTED)
		SKIP("%s: the reference backend does not support it yet: %s", what,
		     webnn_context_last_error(ctx));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s: build: %s: %s", what, webnn_status_name(s),
		   webnn_context_last_error(ctx));
	ASSERT_EQ(webnn_graph_input_count(g), n_in);
	for (size_t i = 0; i < n_in; i++) {
		struct webnn_tensor_desc td = { .writable = true };
		const char *name = webnn_graph_input_name(g, i, &td.desc);
		const struct ct_io *in = NULL;
		for (size_t k = 0; k < n_in && !in; k++)
			if (strcmp(inputs[k].name, name) == 0)
				in = &inputs[k];
		ASSERT_MSG(in != NULL, "%s: graph input %s has no data", what, name);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &tensors[i]));
		OK(ctx, webnn_context_write_tensor(ctx, tensors[i], in->data,
						       ct_bytes(&td.desc)));
		bind_in[i] = (struct webnn_named_tensor){ name, tensors[i] };
	}
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_tensor_desc td = { .readable = true };
		webnn_operand_get_desc(outputs[i].operand, &td.desc);
		OK(ctx, webnn_context_create_tensor(ctx, &td, &tensors[8 + i]));
		bind_out[i] = (struct webnn_named_tensor){ outputs[i].name, tensors[8 + i] };
	}
	OK(ctx, webnn_context_dispatch(ctx, g, bind_in, n_in, bind_out, n_out));
	s = webnn_context_flush(ctx);
	if (s == WEBNN_STATUS_NOT_SUPPORTED)
		SKIP("%s: the reference backend does not run it yet: %s", what,
		     webnn_context_last_error(ctx));
	ASSERT_MSG(s == WEBNN_STATUS_OK, "%s: dispatch: %s: %s", what, webnn_status_name(s),
		   webnn_context_last_error(ctx));
	for (size_t i = 0; i < n_out; i++) {
		struct webnn_operand_desc d;
		webnn_operand_get_desc(outputs[i].operand, &d);
		OK(ctx, webnn_context_read_tensor(ctx, tensors[8 + i], outputs[i].data,
						      ct_bytes(&d)));
	}
	for (size_t i = 0; i < 16; i++)
		webnn_tensor_destroy(tensors[i]);
	webnn_graph_destroy(g);
}

void ct_assert_floats(const char *what, const float *got, const float *want, size_t n,
		      float tol)
{
	for (size_t i = 0; i < n; i++)
		ASSERT_MSG(fabsf(got[i] - want[i]) <= tol, "%s[%zu] = %.9g, expected %.9g", what,
			   i, (double)got[i], (double)want[i]);
}

void ct_assert_shape(const struct webnn_operand *o, enum webnn_data_type t, uint32_t rank,
		     const uint32_t *shape)
{
	struct webnn_operand_desc d;
	webnn_operand_get_desc(o, &d);
	ASSERT_EQ(d.data_type, t);
	ASSERT_EQ(d.rank, rank);
	for (uint32_t i = 0; i < rank; i++)
		ASSERT_EQ(d.shape[i], shape[i]);
}
