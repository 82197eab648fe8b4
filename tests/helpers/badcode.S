/* Functions whose code is hard to annotate, for tests/integration/
 * annotate-bad.sh (assembled, never run): bytes that are no x86-64
 * instruction, a function over annotate's 1 MiB bound, and one whose
 * symbol size runs past the end of its section and of the file. */
	.text
	.globl _start
	.type _start, @function
_start:
	mov $60, %eax
	syscall
	.size _start, .-_start

	.globl undecodable
	.type undecodable, @function
undecodable:
	push %rbp
	.byte 0x06, 0x07 /* invalid in 64-bit mode */
	ud2
	pop %rbp
	ret
	.size undecodable, .-undecodable

	.globl huge
	.type huge, @function
huge:
	.rept 0x28000 /* 8-byte instructions: 1.25 MiB */
	nopl 0x12345678(%rax, %rax, 1)
	.endr
	ret
	.size huge, .-huge

	.globl past_section
	.type past_section, @function
past_section:
	nop
	nop
	ret
	.size past_section, 0x100000
