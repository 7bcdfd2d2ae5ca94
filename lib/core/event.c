/* SPDX-License-Identifier: MIT */
/*
 * Event header accessors and event copies. The header is filled by the run
 * loop for every event; anything that needs work (a NUL-terminated comm,
 * decoded fields) is done on first request and kept for the event.
 */
#include <string.h>

#include "core.h"

TRAWL_API int64_t trawl_event_time(const trawl_event *ev)
{
	return ev->ts;
}

TRAWL_API uint64_t trawl_event_seq(const trawl_event *ev)
{
	return ev->seq;
}

TRAWL_API uint64_t trawl_event_line(const trawl_event *ev)
{
	return ev->line;
}

TRAWL_API int trawl_event_cpu(const trawl_event *ev)
{
	return ev->cpu;
}

TRAWL_API int trawl_event_pid(const trawl_event *ev)
{
	return ev->pid;
}

TRAWL_API int trawl_event_tgid(const trawl_event *ev)
{
	return ev->tgid;
}

TRAWL_API const char *trawl_event_comm(const trawl_event *ev)
{
	if (ev->bits & TW_EV_COMM_Z)
		return ev->comm;
	trawl_event *e = (trawl_event *)ev; /* lazily filled cache */
	if (!e->comm_ready) {
		e->comm_z.len = 0;
		if (tw_buf_append(&e->t->mem, &e->comm_z, e->comm, e->comm_len))
			return "<...>";
		e->comm_ready = 1;
	}
	return e->comm_z.data;
}

TRAWL_API const char *trawl_event_name(const trawl_event *ev)
{
	return ev->type->name;
}

TRAWL_API const char *trawl_event_system(const trawl_event *ev)
{
	return ev->type->system;
}

TRAWL_API uint32_t trawl_event_type_id(const trawl_event *ev)
{
	return ev->type->id;
}

TRAWL_API unsigned trawl_event_flags(const trawl_event *ev)
{
	return ev->flags;
}

TRAWL_API int trawl_event_preempt_depth(const trawl_event *ev)
{
	return ev->preempt;
}

TRAWL_API const char *trawl_event_payload(const trawl_event *ev, size_t *len)
{
	if ((ev->bits & TW_EV_BINARY) && !ev->payload &&
	    ev->t->ops->payload(ev)) {
		if (len)
			*len = 0;
		return "";
	}
	if (TW_UNLIKELY(ev->bits & TW_EV_IP_FROM_NAME)) {
		/* the kernel printed a print event's "%ps: %s" where names
		 * go: "tracing_mark_write: text" is its text */
		trawl_event *e = (trawl_event *)ev;
		e->payload_z.len = 0;
		if (tw_buf_append(&e->t->mem, &e->payload_z,
				  "tracing_mark_write: ", 20) ||
		    tw_buf_append(&e->t->mem, &e->payload_z, ev->payload,
				  ev->payload_len)) {
			if (len)
				*len = 0;
			return "";
		}
		if (len)
			*len = e->payload_z.len;
		return e->payload_z.data;
	}
	if (len)
		*len = ev->payload_len;
	/* an empty text a reader never allocated (sys_enter_getppid's) */
	return ev->payload ? ev->payload : "";
}

/*
 * A copy owns one block: the struct, then the comm and payload bytes. Field
 * pointers are not copied; the copy decodes again when asked.
 */
TRAWL_API const char *trawl_event_buffer(const trawl_event *ev)
{
	if (!(ev->bits & TW_EV_BINARY) || !ev->t->ops->buffer_name)
		return "";
	return ev->t->ops->buffer_name(ev->t, ev->buffer);
}

TRAWL_API trawl_event *trawl_event_copy(const trawl_event *ev)
{
	const tw_mem *mem = &ev->t->mem;
	/* Binary events keep their record; their text is made again. */
	int binary = (ev->bits & TW_EV_BINARY) != 0;
	size_t payload_len = binary ? 0 : ev->payload_len;
	size_t extra =
		ev->comm_len + payload_len + 2 + (binary ? ev->data_len : 0);
	trawl_event *c = tw_malloc(mem, sizeof(*c) + extra);
	if (!c)
		return NULL;
	*c = *ev;
	char *p = (char *)(c + 1);
	memcpy(p, ev->comm, ev->comm_len);
	p[ev->comm_len] = '\0';
	c->comm = p;
	p += ev->comm_len + 1;
	if (binary) {
		c->payload = NULL;
		c->payload_len = 0;
		memcpy(p, ev->data, ev->data_len);
		c->data = p;
	} else {
		memcpy(p, ev->payload, payload_len);
		p[payload_len] = '\0';
		c->payload = p;
	}
	c->nfields = -1;
	c->comm_ready = 0;
	memset(&c->comm_z, 0, sizeof(c->comm_z));
	memset(&c->str_z, 0, sizeof(c->str_z));
	memset(&c->payload_z, 0, sizeof(c->payload_z));
	memset(&c->fields_z, 0, sizeof(c->fields_z));
	memset(&c->elems_z, 0, sizeof(c->elems_z));
	memset(&c->label_z, 0, sizeof(c->label_z));
	memset(&c->num_z, 0, sizeof(c->num_z));
	memset(&c->json_z, 0, sizeof(c->json_z));
	memset(&c->notes_z, 0, sizeof(c->notes_z));
	c->pending = 0;
	c->typed = 0;
	c->bits |= TW_EV_OWNED;
	return c;
}

TRAWL_API void trawl_event_free(trawl_event *ev)
{
	if (!ev || !(ev->bits & TW_EV_OWNED))
		return;
	const tw_mem *mem = &ev->t->mem;
	tw_buf_fini(mem, &ev->comm_z);
	tw_buf_fini(mem, &ev->str_z);
	tw_buf_fini(mem, &ev->payload_z);
	tw_buf_fini(mem, &ev->fields_z);
	tw_buf_fini(mem, &ev->elems_z);
	tw_buf_fini(mem, &ev->label_z);
	tw_buf_fini(mem, &ev->num_z);
	tw_buf_fini(mem, &ev->json_z);
	tw_buf_fini(mem, &ev->notes_z);
	tw_free(mem, ev);
}
