/* trace/ptw.c: Intel PT packet writer for the software backend.  Every
 * sequence follows docs/pt-packets.md (libipt 2.0.5 validated); the section
 * numbers in comments refer to it. */
#include "trace/ptw.h"
#include "trace/pages.h"

#include <intel-pt.h>
#include <string.h>

static int ptw_put(struct trace_ptw *w, const struct pt_packet *p)
{
	int n;

	if (pt_enc_sync_set(w->enc, 0) < 0)
		return -1;
	n = pt_enc_next(w->enc, p);
	if (n <= 0)
		return -1;
	return trace_ring_write(w->ring, w->scratch, (size_t)n);
}

static int ptw_simple(struct trace_ptw *w, enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	return ptw_put(w, &p);
}

static int ptw_mode(struct trace_ptw *w)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	p.payload.mode.bits.exec.csd = 0;
	return ptw_put(w, &p);
}

static int ptw_tsc(struct trace_ptw *w)
{
	struct pt_packet p;

	if (!w->tsc_on)
		return 0;
	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = w->now & ((1ull << 56) - 1);
	return ptw_put(w, &p);
}

/* PIP: the code generation as its CR3 (trace/pages.h); in a PSB+ always
 * once one was said or the generation moved, else when it moved. */
static int ptw_pip(struct trace_ptw *w, int in_psb)
{
	struct pt_packet p;
	uint64_t cr3;

	if (!w->code_gen)
		return 0;
	cr3 = trace_pages_cr3(*w->code_gen);
	if (w->said ? !in_psb && cr3 == w->cr3_said : !cr3)
		return 0;
	memset(&p, 0, sizeof(p));
	p.type = ppt_pip;
	p.payload.pip.cr3 = cr3;
	if (ptw_put(w, &p) < 0)
		return -1;
	w->cr3_said = cr3;
	w->said = 1;
	return 0;
}

_Static_assert(pt_ipc_update_16 == 1 && pt_ipc_update_32 == 2 && pt_ipc_sext_48 == 3 &&
	       pt_ipc_update_48 == 4 && pt_ipc_full == 6, "trace_ptw_ipc_'s values are libipt's");

/* The IP packets (TIP, TIP.PGE, FUP) and TNT are the stream's bulk:
 * written by hand (ptw.h), without the encoder's per-packet set-up. */
static int ptw_ip(struct trace_ptw *w, enum pt_packet_type type, uint64_t ip)
{
	return trace_ptw_ip_(w, type == ppt_tip ? 0x0d : type == ppt_tip_pge ? 0x11 : 0x1d, ip);
}

static int ptw_pgd_suppressed(struct trace_ptw *w)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tip_pgd;
	p.payload.ip.ipc = pt_ipc_suppressed;
	if (ptw_put(w, &p) < 0)
		return -1;
	w->packet_en = 0;
	return 0;
}

/* §5: TNT-8 for <= 6 bits, TNT-64 otherwise; oldest bit most significant. */
int trace_ptw_flush(struct trace_ptw *w)
{
	if (!w->tnt_n)
		return 0;
	if (trace_ptw_tnt_(w->ring, w->tnt_bits, w->tnt_n) < 0)
		return -1;
	w->tnt_n = 0;
	w->tnt_bits = 0;
	return 0;
}

static void ptw_reset_mirror(struct trace_ptw *w)
{
	w->last_ip_valid = 0;
	w->last_ip = 0;
	w->stack_n = 0;
	w->stack_top = 0;
}

int trace_ptw_init(struct trace_ptw *w, struct trace_ring *ring,
		   const struct trace_ptw_config *c, struct ptdb_err *err)
{
	struct pt_config cfg;

	memset(w, 0, sizeof(*w));
	w->ring = ring;
	w->psb_period = c && c->psb_period ? c->psb_period : TRACE_PTW_DEFAULT_PERIOD;
	w->tsc_on = c ? c->tsc : 0;
	if (w->psb_period < TRACE_PTW_MIN_PERIOD)
		return ptdb_err_set(err, "PSB period %zu is below the minimum of %u bytes",
				    w->psb_period, TRACE_PTW_MIN_PERIOD);
	if (!ring || ring->size < 4 * sizeof(w->scratch))
		return ptdb_err_set(err, "trace ring too small");
	pt_config_init(&cfg);
	cfg.begin = w->scratch;
	cfg.end = w->scratch + sizeof(w->scratch);
	w->enc = pt_alloc_encoder(&cfg);
	if (!w->enc)
		return ptdb_err_set(err, "cannot allocate the Intel PT encoder");
	return 0;
}

void trace_ptw_release(struct trace_ptw *w)
{
	if (w->enc)
		pt_free_encoder(w->enc);
	w->enc = NULL;
}

void trace_ptw_set_time(struct trace_ptw *w, uint64_t tsc)
{
	w->now = tsc;
}

/* PSB [TSC] MODE [FUP(ip)] PSBEND; resets the mirror (§4, §9). */
static int ptw_psb_plus(struct trace_ptw *w, int with_fup, uint64_t ip)
{
	if (trace_ptw_flush(w) < 0)
		return -1;
	w->last_psb = w->ring->total;
	if (ptw_simple(w, ppt_psb) < 0)
		return -1;
	ptw_reset_mirror(w);
	if (ptw_tsc(w) < 0 || ptw_pip(w, 1) < 0 || ptw_mode(w) < 0)
		return -1;
	if (with_fup && ptw_ip(w, ppt_fup, ip) < 0)
		return -1;
	if (ptw_simple(w, ppt_psbend) < 0)
		return -1;
	w->started = 1;
	return 0;
}

static int ptw_pge(struct trace_ptw *w, uint64_t ip)
{
	if (ptw_tsc(w) < 0 || ptw_mode(w) < 0 || ptw_ip(w, ppt_tip_pge, ip) < 0)
		return -1;
	w->packet_en = 1;
	return 0;
}

int trace_ptw_enable(struct trace_ptw *w, uint64_t ip)
{
	if (w->packet_en)
		return -1;
	if (!w->started && ptw_psb_plus(w, 0, 0) < 0)
		return -1;
	if (ptw_pip(w, 0) < 0)
		return -1;
	return ptw_pge(w, ip);
}

int trace_ptw_disable_async(struct trace_ptw *w, uint64_t next_ip)
{
	if (!w->packet_en)
		return -1;
	if (trace_ptw_flush(w) < 0 || ptw_tsc(w) < 0 || ptw_ip(w, ppt_fup, next_ip) < 0)
		return -1;
	return ptw_pgd_suppressed(w);
}

int trace_ptw_syscall(struct trace_ptw *w)
{
	if (!w->packet_en)
		return -1;
	if (trace_ptw_flush(w) < 0 || ptw_tsc(w) < 0)
		return -1;
	return ptw_pgd_suppressed(w);
}

int trace_ptw_int(struct trace_ptw *w, uint64_t clip)
{
	return trace_ptw_disable_async(w, clip);
}

int trace_ptw_call_indirect(struct trace_ptw *w, uint64_t nlip, uint64_t target)
{
	if (trace_ptw_jump_indirect(w, target) < 0)
		return -1;
	trace_ptw_push_(w, nlip);
	return 0;
}

int trace_ptw_jump_indirect(struct trace_ptw *w, uint64_t target)
{
	if (!w->packet_en)
		return -1;
	if (trace_ptw_flush(w) < 0)
		return -1;
	return ptw_ip(w, ppt_tip, target);
}

int trace_ptw_overflow(struct trace_ptw *w, uint64_t resume_ip)
{
	if (w->packet_en || !w->started)
		return -1;
	if (ptw_simple(w, ppt_ovf) < 0)
		return -1;
	ptw_reset_mirror(w);
	return ptw_pge(w, resume_ip);
}

int trace_ptw_maybe_psb(struct trace_ptw *w, uint64_t next_ip)
{
	if (!trace_ptw_psb_due(w))
		return 0;
	if (ptw_psb_plus(w, w->packet_en, next_ip) < 0)
		return -1;
	return 1;
}

int trace_ptw_psb_disabled(struct trace_ptw *w)
{
	if (w->packet_en)
		return -1;
	return ptw_psb_plus(w, 0, 0);
}

int trace_ptw_code_moved(struct trace_ptw *w, uint64_t next_ip)
{
	if (!w->code_gen || !w->packet_en || trace_pages_cr3(*w->code_gen) == w->cr3_said)
		return 0;
	return ptw_psb_plus(w, 1, next_ip);
}

size_t trace_ptw_bytes_written(const struct trace_ptw *w)
{
	return (size_t)w->ring->total;
}
