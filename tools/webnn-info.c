/* webnn-info: connects to webnnd and prints, as JSON, what a context runs on or (--list) every device and the backend serving it. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <webnn.h>

static json_t *data_types_json(uint32_t mask)
{
	json_t *a = json_array();
	for (int t = 0; t < 32; t++) {
		const char *name = webnn_data_type_name((enum webnn_data_type)t);
		if ((mask >> t) & 1u)
			json_array_append_new(a, json_string(name ? name : "unknown"));
	}
	return a;
}

/* The MLTensorLimits / MLSupportLimits shape of the spec: {dataTypes, rankRange{min, max}}. */
static json_t *limits_json(const struct webnn_tensor_limits *l)
{
	return json_pack("{s:o, s:{s:I, s:I}}", "dataTypes", data_types_json(l->data_types),
			 "rankRange", "min", (json_int_t)l->min_rank, "max",
			 (json_int_t)l->max_rank);
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* --list: every device, in the order webnnd routes contexts to them. */
static int list_devices(const char *socket_path)
{
	struct webnn_device_info *devs = NULL;
	size_t n = 0;
	char err[512] = "";
	enum webnn_status s = webnn_list_devices(socket_path, &devs, &n, err, sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		fprintf(stderr, "webnn-info: cannot list the devices of webnnd: %s: %s\n",
			webnn_status_name(s), err);
		return 1;
	}
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "backend",
						   devs[i].backend, "name", devs[i].device_name,
						   "type", devs[i].device_type, "platform",
						   devs[i].platform_name, "driverVersion",
						   devs[i].driver_version, "accelerated",
						   devs[i].accelerated));
	webnn_devices_free(devs, n);
	json_t *root = json_pack("{s:o}", "devices", a);
	int rc = 0;
	if (!root || json_dumpf(root, stdout, JSON_INDENT(2)) != 0) {
		fprintf(stderr, "webnn-info: could not format the device list\n");
		rc = 1;
	} else {
		printf("\n");
	}
	json_decref(root);
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: webnn-info [--socket PATH] [--cpu|--gpu|--list]\n"
		   "Prints the device, backend and opSupportLimits() of a webnnd context as JSON.\n"
		   "  --socket PATH  webnnd socket (default: $WEBNN_SOCKET, else %s)\n"
		   "  --list         list every device webnnd serves and its backend instead\n"
		   "  --cpu          ask for a context with accelerated = false\n"
		   "  --gpu          ask for an accelerated, high-performance context\n"
		   "  --version      print the version\n",
		WEBNN_DEFAULT_SOCKET);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' }, { "cpu", no_argument, NULL, 'c' },
		{ "gpu", no_argument, NULL, 'g' },          { "help", no_argument, NULL, 'h' },
		{ "list", no_argument, NULL, 'l' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct webnn_context_options co = WEBNN_CONTEXT_OPTIONS_INIT;
	int ch;
	bool list = false;
	co.client_name = "webnn-info";
	while ((ch = getopt_long(argc, argv, "s:cghl", longopts, NULL)) != -1) {
		switch (ch) {
		case 'l': list = true; break;
		case 's': co.socket_path = optarg; break;
		case 'c': co.accelerated = false; break;
		case 'g':
			co.accelerated = true;
			co.power_preference = WEBNN_POWER_HIGH_PERFORMANCE;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("webnn-info %s\n", WEBNN_VERSION_STRING); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (list)
		return list_devices(co.socket_path);

	struct webnn_context *ctx = NULL;
	char err[512] = "";
	enum webnn_status s = webnn_context_create(&co, &ctx, err, sizeof(err));
	if (s != WEBNN_STATUS_OK) {
		const char *sock = co.socket_path ? co.socket_path : getenv("WEBNN_SOCKET");
		fprintf(stderr, "webnn-info: cannot create a context on webnnd at %s: %s: %s\n",
			sock && *sock ? sock : WEBNN_DEFAULT_SOCKET, webnn_status_name(s), err);
		return 1;
	}

	struct webnn_context_info info;
	struct webnn_support_limits lim;
	webnn_context_get_info(ctx, &info);
	webnn_context_support_limits(ctx, &lim);

	json_t *ops = json_object();
	const char *op, *role;
	struct webnn_tensor_limits l;
	for (size_t i = 0; webnn_context_op_limit_at(ctx, i, &op, &role, &l); i++) {
		json_t *entry = json_object_get(ops, op);
		if (!entry) {
			entry = json_object();
			json_object_set_new(ops, op, entry);
		}
		json_object_set_new(entry, role, limits_json(&l));
	}

	json_t *root = json_pack(
		"{s:{s:s, s:s, s:s, s:s}, s:s, s:b, s:s, s:I, s:o, s:o, s:o, s:o}", "device", "name",
		str_or_empty(info.device_name), "type", str_or_empty(info.device_type), "platform",
		str_or_empty(info.platform_name), "driverVersion",
		str_or_empty(info.driver_version), "backend", str_or_empty(info.backend),
		"accelerated", info.accelerated, "preferredInputLayout",
		lim.preferred_input_layout == WEBNN_LAYOUT_NHWC ? "nhwc" : "nchw",
		"maxTensorByteLength", (json_int_t)lim.max_tensor_byte_length, "input",
		limits_json(&lim.input), "constant", limits_json(&lim.constant), "output",
		limits_json(&lim.output), "opSupportLimits", ops);
	int rc = 0;
	if (!root || json_dumpf(root, stdout, JSON_INDENT(2)) != 0) {
		fprintf(stderr, "webnn-info: could not format the context description\n");
		rc = 1;
	} else {
		printf("\n");
	}
	json_decref(root);
	webnn_context_destroy(ctx);
	return rc;
}
