/* SPDX-License-Identifier: MIT */
/*
 * lib/ring's protocol for one CPU buffer, checked with spin
 * (tests/ring/check-model.sh): writers that reserve by compare-and-swap of
 * woff, mark the place's slot for their cycle, reset its commit word, write
 * and commit; a reader that takes finished sub-buffers (overwrite mode: by
 * exchanging its spare page into the slot) and resyncs when lapped.
 * Each record is one unit and a sub-buffer S units, so there is no
 * padding; cycles are not taken modulo anything. Every d_step/atomic is
 * one atomic instruction of write.c or read.c.
 *
 * Checked: no record is read while being written, and the reader's page
 * is never written; no record is delivered twice; at the end delivered +
 * overwritten + lost is exactly what was emitted; the reservation takes at
 * most MAXTRIES attempts and the slot marking at most MARKTRIES.
 *
 *	spin -a -DOVERWRITE=1 ring.pml && gcc -O2 -o pan pan.c && ./pan
 */
/* MUTANT=n breaks the protocol on purpose; check-model.sh expects each
 * one to be caught: 1 the reader reads in place instead of exchanging,
 * 2 a marking writer counts a page the reader took as overwritten, 3 a
 * writer reuses a place whose previous cycle is not finished. */
#ifndef MUTANT
#define MUTANT 0
#endif
#ifndef OVERWRITE
#define OVERWRITE 1
#endif
#define N 2		/* sub-buffers */
#define S 2		/* records per sub-buffer */
#define W 2		/* writers */
#define E 3		/* events per writer */
#define MAXTRIES 8
#define MARKTRIES 4
#define PAGES (N + 1)

byte woff;		/* units reserved */
byte consumed;		/* discard mode */
byte spare = N;		/* the reader's page */
/* slot[i] */
byte sid[N];
short scycle[N];
bool staken[N];
/* commit[i] */
short ccycle[N];
byte cbytes[N];
byte crec[N];
/* pages: the record in each cell, and whether a writer is inside it */
byte cell[PAGES * S];
bool writing[PAGES * S];
/* the reader holds page rid while rheld */
bool rheld;
byte rid;

byte overwritten, lost, lost_retry, emitted_ok, delivered_n;
bool delivered[W * 8 + 8];
byte writers_done;

proctype writer(byte me)
{
	byte seq = 0, tries, old, begin, i, k, id;
	short c, wc;
	bool ok;
	do
	:: seq < E ->
		tries = 0;
		ok = false;
		do
		:: tries < MAXTRIES ->
			old = woff;
			begin = old;
			i = (begin / S) % N;
			c = begin / (S * N);
			if
			:: begin % S == 0 ->
				if
				:: (!OVERWRITE && begin + S - consumed > N * S) ||
				   (MUTANT != 3 && !(ccycle[i] == c - 1 && cbytes[i] == S)) ->
					if
					:: woff != old -> tries++; goto next_try
					:: else -> lost++; goto dropped
					fi
				:: else -> skip
				fi
			:: else -> skip
			fi;
			/* the CAS */
			d_step {
				if
				:: woff == old -> woff = begin + 1; ok = true
				:: else -> skip
				fi
			}
			if
			:: ok -> break
			:: else -> tries++
			fi;
next_try:		skip
		:: else -> lost++; lost_retry++; goto dropped
		od;
		assert(tries < MAXTRIES);
		/* page_for: mark slot[i] for cycle c */
		k = 0;
		do
		:: scycle[i] == c -> break
		:: else ->
			assert(k < MARKTRIES);
			wc = ccycle[i];
			atomic {
				/* CAS from the value loaded: any change
				 * since (a reader's swap) fails it */
				if
				:: scycle[i] == c - 1 ->
					if
					:: OVERWRITE && (!staken[i] || MUTANT == 2) && wc == c - 1 ->
						overwritten = overwritten + crec[i]
					:: else -> skip
					fi;
					scycle[i] = c;
					staken[i] = false
				:: else -> skip
				fi
			}
			k++
		od;
		/* reset commit[i] from the previous cycle's final value */
		atomic {
			if
			:: ccycle[i] == c - 1 && cbytes[i] == S ->
				ccycle[i] = c; cbytes[i] = 0; crec[i] = 0
			:: else -> skip
			fi
		}
		assert(ccycle[i] == c);
		id = sid[i];
		/* write the record */
		d_step {
			assert(!(rheld && rid == id));
			writing[id * S + begin % S] = true
		}
		d_step {
			cell[id * S + begin % S] = me * 8 + seq + 1;
			writing[id * S + begin % S] = false
		}
		/* commit */
		d_step {
			cbytes[i]++; crec[i]++; emitted_ok++
		}
dropped:	seq++
	:: else -> break
	od;
	writers_done++
}

proctype reader()
{
	byte pos, base, i, off, v, id, mine;
	short c;
	byte last, first;
	bool quiet;	/* the writers were done before this look */
	do
	:: pos < woff ->
		quiet = (writers_done == W);
		base = pos / S * S;
		i = (base / S) % N;
		c = base / (S * N);
		if
		:: woff - base > N * S ->
			/* lapped: the oldest that can still be whole */
			last = (woff - 1) / S;
			first = last - (N - 1);
			pos = first * S;
			assert(OVERWRITE)
		:: scycle[i] > c ->
			last = (woff - 1) / S;
			first = last - (N - 1);
			pos = (first > base / S -> first * S : base + S)
		:: scycle[i] == c && ccycle[i] == c && cbytes[i] == S ->
			id = sid[i];
			if
			:: OVERWRITE && MUTANT != 1 ->
				/* exchange the spare for it */
				atomic {
					if
					:: sid[i] == id && scycle[i] == c && !staken[i] ->
						sid[i] = spare; staken[i] = true;
						rheld = true; rid = id;
						spare = id
					:: else -> skip
					fi
				}
			:: else -> skip
			fi;
			if
			:: !OVERWRITE || MUTANT == 1 || (rheld && rid == id) ->
				off = 0;
				do
				:: off < S ->
					assert(!writing[id * S + off]);
					v = cell[id * S + off];
					assert(v != 0);
					assert(!delivered[v]);
					delivered[v] = true;
					delivered_n++;
					off++
				:: else -> break
				od;
				consumed = base + S;
				rheld = false;
				pos = base + S
			:: else -> skip
			fi
		:: else ->
			/* not finished: wait, unless everything is done */
			if
			:: quiet -> break
			:: else -> skip
			fi
		fi
	:: pos >= woff && writers_done == W -> break
	od;
	/* every record emitted is delivered or counted as overwritten, except
	 * those left in the last unfinished sub-buffer (read partially by
	 * read.c at the end, not modelled) */
	assert(delivered_n + overwritten <= emitted_ok);
	assert(emitted_ok + lost == W * E);
	/* W * E < MAXTRIES: contention alone never exhausts the attempts */
	assert(lost_retry == 0);
	if
	:: woff % S == 0 -> assert(delivered_n + overwritten == emitted_ok)
	:: else -> skip
	fi
}

init {
	byte i;
	for (i : 0 .. N - 1) {
		sid[i] = i;
		scycle[i] = -1;
		staken[i] = true;
		ccycle[i] = -1;
		cbytes[i] = S
	}
	atomic {
		run writer(0);
		run writer(1);
		run reader()
	}
}
