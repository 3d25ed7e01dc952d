/* Shared fixture of the validation tests (tests/ops_<family>.c, test_schema.c): see opfixture.h. */
#include "tests/opfixture.h"

#include <string.h>

#include "tests/test.h"

uint32_t st_add_desc(struct fx *f, enum wnn_dtype t, size_t rank, const uint32_t *dims)
{
	struct wnn_desc *d = &f->d[f->n];
	memset(d, 0, sizeof(*d));
	d->type = t;
	d->rank = (uint32_t)rank;
	for (size_t i = 0; i < rank; i++)
		d->dims[i] = dims[i];
	return (uint32_t)f->n++;
}

Webnn__Ipc__Operation st_mkop(enum wnn_op k)
{
	Webnn__Ipc__Operation op = WEBNN__IPC__OPERATION__INIT;
	op.op = wnn_ops[k].id;
	op.attrs_case = (Webnn__Ipc__Operation__AttrsCase)wnn_ops[k].attrs;
	return op;
}

enum webnn_status st_resolve(const struct fx *f, const Webnn__Ipc__Operation *op,
			     union wnn_attrs *attrs, struct wnn_diag *diag)
{
	struct wnn_desc d[32];
	uint32_t ids[WNN_MAX_OUTPUTS];
	enum wnn_op kind;
	memcpy(d, f->d, sizeof(d));
	int n = wnn_op_outputs(op, ids, WNN_MAX_OUTPUTS);
	ASSERT_EQ(n, f->n_out);
	for (int i = 0; i < n; i++)
		d[ids[i]] = f->out[i];
	wnn_diag_clear(diag);
	return wnn_resolve(op, d, f->n, &kind, attrs, diag);
}

enum webnn_status st_run(struct fx *f, const Webnn__Ipc__Operation *op)
{
	wnn_diag_clear(&f->diag);
	f->n_out = -1;
	return wnn_op_infer(op, f->d, f->n, f->out, WNN_MAX_OUTPUTS, &f->n_out, &f->diag);
}

void st_expect_out(struct fx *f, int i, enum wnn_dtype t, size_t rank, const uint32_t *dims,
		   int line)
{
	char buf[128];
	if (f->diag.status != WEBNN_STATUS_OK)
		FAIL("line %d: unexpected error: %s", line, f->diag.message);
	if (i >= f->n_out)
		FAIL("line %d: only %d outputs", line, f->n_out);
	struct wnn_desc want = { t, (uint32_t)rank, { 0 } };
	for (size_t k = 0; k < rank; k++)
		want.dims[k] = dims[k];
	if (!wnn_desc_equal(&want, &f->out[i]))
		FAIL("line %d: output %d is %s", line, i, wnn_desc_str(&f->out[i], buf, sizeof(buf)));
}

Webnn__Ipc__Operation st_binary(enum wnn_op k, Webnn__Ipc__ElementwiseBinary *m, uint32_t a,
				uint32_t b, uint32_t out)
{
	Webnn__Ipc__Operation op = st_mkop(k);
	webnn__ipc__elementwise_binary__init(m);
	m->a = a, m->b = b, m->output = out;
	op.binary = m;
	return op;
}

void st_conv_init(struct conv *c, uint32_t x, uint32_t w, uint32_t o)
{
	webnn__ipc__conv2d__init(&c->m);
	c->op = st_mkop(WNN_OP_CONV2D);
	c->op.conv2d = &c->m;
	c->m.input = x, c->m.filter = w, c->m.output = o;
}
