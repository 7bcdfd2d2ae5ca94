/* SPDX-License-Identifier: MIT */
/*
 * The script bytecode. An instruction is one 32-bit word:
 *
 *   31                        8 7          0
 *  +---------------------------+------------+
 *  |      A (24 bits, unsigned) |   opcode   |
 *  +---------------------------+------------+
 *
 * The VM is a stack machine over tw_sval (an integer or a borrowed
 * string). Each probe's code ends in HALT; jumps are absolute. The JxxK
 * compare-and-jumps take a second word, their constant K. The
 * comment of each opcode is its semantics, and docs/script.md's opcode
 * table is generated from these lines (tests/script/gen-opcodes.sh).
 */
#ifndef TW_SCRIPT_OPCODES_H
#define TW_SCRIPT_OPCODES_H

/* X(NAME, "semantics") */
#define TW_OPCODES(X)                                                          \
	X(HALT, "end of the probe's run")                                      \
	X(PUSHI, "push the integer A")                                         \
	X(PUSHK, "push the integer constant ints[A]")                          \
	X(PUSHS, "push the string constant strs[A]")                           \
	X(CTX, "push context value A (ts usecs cpu pid tid tgid comm event "   \
	       "probe elapsed)")                                               \
	X(KSTACK, "push the event's kernel stack (its id), A & 255 frames")    \
	X(FIELDI, "push field A of the event as an integer (0 if absent)")     \
	X(FIELDS, "push field A of the event as a string (\"\" if absent)")    \
	X(FIELDA, "pop k; push element k of array field A (0 if none)")        \
	X(FIELDK, "push field A again: a FIELDI or FIELDS of A ran before")    \
	X(LDV, "push $var A")                                                  \
	X(STV, "pop into $var A (a string is copied, at most 64 bytes)")       \
	X(POP, "drop the top value")                                           \
	X(ADD, "b = pop, a = pop, push a + b (wrapping)")                      \
	X(SUB, "push a - b")                                                   \
	X(MUL, "push a * b")                                                   \
	X(DIV, "push a / b; fault when b is 0")                                \
	X(MOD, "push a % b; fault when b is 0")                                \
	X(AND, "push a & b")                                                   \
	X(OR, "push a | b")                                                    \
	X(XOR, "push a ^ b")                                                   \
	X(SHL, "push a << (b & 63)")                                           \
	X(SHR, "push a >> (b & 63), logical (bpftrace's)")                     \
	X(NEG, "push -pop")                                                    \
	X(NOT, "push !pop")                                                    \
	X(BNOT, "push ~pop")                                                   \
	X(EQ, "push a == b (integers)")                                        \
	X(NE, "push a != b")                                                   \
	X(LT, "push a < b")                                                    \
	X(LE, "push a <= b")                                                   \
	X(GT, "push a > b")                                                    \
	X(GE, "push a >= b")                                                   \
	X(SEQ, "push a == b (strings, bytewise)")                              \
	X(SNE, "push a != b (strings)")                                        \
	X(SLT, "push a < b (strings)")                                         \
	X(SLE, "push a <= b (strings)")                                        \
	X(SGT, "push a > b (strings)")                                         \
	X(SGE, "push a >= b (strings)")                                        \
	X(JMP, "jump to A")                                                    \
	X(JZ, "pop; jump to A when it is 0")                                   \
	X(JNZ, "pop; jump to A when it is not 0")                              \
	X(JEQ, "b = pop, a = pop; jump to A when a == b (integers)")           \
	X(JNE, "jump to A when a != b")                                        \
	X(JLT, "jump to A when a < b")                                         \
	X(JLE, "jump to A when a <= b")                                        \
	X(JGT, "jump to A when a > b")                                         \
	X(JGE, "jump to A when a >= b")                                        \
	X(JEQK, "a = pop; jump to A when a == K, K the next word (signed)")    \
	X(JNEK, "jump to A when a != K")                                       \
	X(JLTK, "jump to A when a < K")                                        \
	X(JLEK, "jump to A when a <= K")                                       \
	X(JGTK, "jump to A when a > K")                                        \
	X(JGEK, "jump to A when a >= K")                                       \
	X(LOOP, "count a loop iteration; fault past the bound")                \
	X(MGET, "pop the keys of map A, push its value (0 or \"\" if none)")   \
	X(MSET, "pop a value and the keys of map A; store it")                 \
	X(MGETK, "MGET with the key field K (next word), read before")         \
	X(MSETK, "pop a value; MSET with the key field K (next word)")         \
	X(MAGG, "pop the argument (if any) and keys of map A; aggregate")      \
	X(MDEL, "pop the keys of map A; delete that entry")                    \
	X(MCLEAR, "delete every entry of map A")                               \
	X(MZERO, "set every value of map A to 0, keeping its keys")            \
	X(MPRINT, "pop n; print map A (its n largest; all when n < 0)")        \
	X(PRINTF, "pop the arguments of format A; print")                      \
	X(STRLEN, "push the length of the popped string")                      \
	X(KSYM, "pop an address; push the symbol holding it, or 0x...")        \
	X(NTOP, "pop an address (and a family when A is 2); push its text")    \
	X(BSWAP, "push the popped value's low A bytes in reverse order")       \
	X(STRNCMP, "n, b, a = pop; push strncmp(a, b, n) as -1, 0, 1")         \
	X(STRCONTAINS, "b, a = pop; push whether a contains b")                \
	X(TIME, "pop a strftime format; print the wall clock now by it")       \
	X(STRFTIME, "ns, fmt = pop; push ns's time as strftime's fmt has it")  \
	X(EXIT, "stop this run and the trace; END runs next")

enum tw_opcode {
#define TW_X_OP(name, doc) OP_##name,
	TW_OPCODES(TW_X_OP)
#undef TW_X_OP
		OP_COUNT
};

#define TW_OP(w)   ((w)&0xffu)
#define TW_ARG(w)  ((w) >> 8)
#define TW_ARG_MAX 0xffffffu

#endif
