// SPDX-License-Identifier: MIT
/* --service templates: expansion per process, the fallback to the comm,
 * and the check of unknown placeholders. */
#include <string.h>

#include "base/unit.h"
#include "report/service_name.h"

static const char *expand(const char *tmpl, const struct service_vars *v)
{
	static struct strbuf out = STRBUF_INIT;

	sb_reset(&out);
	service_expand(&out, tmpl, v);
	return sb_str(&out);
}

int main(void)
{
	const char *labels[] = { "env=prod", "team=core" };
	struct proc_container named = {
		.id = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		.name = "app", .pod_uid = "5b2f0c1e-8a7d-4c3b-9e1f-0a2b3c4d5e6f",
		.pod_name = "api-5c", .pod_namespace = "shop",
	};
	struct proc_container bare = { .id = named.id };
	struct service_vars host = { .comm = "luajit", .pid = 42, .labels = labels, .nlabels = 2 };
	struct service_vars pod = host, ctr = host;
	char err[200];

	pod.ctr = &named;
	ctr.ctr = &bare;
	CHECK_STR("plain text stays", expand("checkout", &host), "checkout");
	CHECK_STR("{comm}-{pid}", expand("{comm}-{pid}", &host), "luajit-42");
	CHECK_STR("{container}: the name", expand("{container}", &pod), "app");
	CHECK_STR("{container}: else 12 digits of the ID", expand("{container}", &ctr), "0123456789ab");
	CHECK_STR("{container_id}", expand("{container_id}", &ctr), named.id);
	CHECK_STR("{namespace}/{pod}", expand("{namespace}/{pod}", &pod), "shop/api-5c");
	CHECK_STR("{pod_uid}", expand("{pod_uid}", &pod), named.pod_uid);
	CHECK_STR("{label:K}", expand("{label:team}-{comm}", &host), "core-luajit");
	CHECK_STR("a host process under {container}: the comm", expand("{container}", &host), "luajit");
	CHECK_STR("partly known: kept", expand("{pod}-{comm}", &host), "-luajit");
	CHECK_STR("unknown label: empty, the comm", expand("{label:nope}", &host), "luajit");
	CHECK("no braces: not a template", !service_is_template("web"));
	CHECK("braces: a template", service_is_template("{comm}"));
	CHECK("known placeholders pass the check",
	      !service_template_check("x{comm}{pid}{container}{container_id}{pod}{namespace}{pod_uid}{label:a}",
				      err, sizeof(err)));
	CHECK("an unknown placeholder is refused",
	      service_template_check("{hostname}", err, sizeof(err)) && strstr(err, "{hostname}"));
	CHECK("an open brace is refused", service_template_check("a{comm", err, sizeof(err)) == -1);
	CHECK("{label:} without a key is refused", service_template_check("{label:}", err, sizeof(err)) == -1);
	UNIT_EXIT();
}
