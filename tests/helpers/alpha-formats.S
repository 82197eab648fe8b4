/* Every Alpha instruction format, for tests/integration/alpha-disasm.sh:
 * assembled with alpha-linux-gnu-gcc and disassembled by proftop and by
 * objdump.  Not run: only decoded. */
	.set noreorder
	.set noat
	.set nomacro
	.arch ev67
	.text
	.globl formats_memory
	.ent formats_memory
formats_memory:
	lda $1, 8($2)
	lda $3, -32768($31)
	ldah $4, 32767($5)
	ldbu $6, 1($7)
	ldwu $8, -2($9)
	stb $10, 3($11)
	stw $12, 4($13)
	ldq_u $31, 0($30)
	ldq_u $14, 5($15)
	stq_u $16, 6($17)
	ldl $18, -8($19)
	ldq $20, 16($21)
	ldl_l $22, 0($23)
	ldq_l $24, 0($25)
	stl $26, 24($27)
	stq $28, 32($29)
	stl_c $0, 0($1)
	stq_c $2, 0($3)
	ldf $f0, 8($4)
	ldg $f1, 16($5)
	lds $f2, 24($6)
	ldt $f3, 32($7)
	stf $f4, 40($8)
	stg $f5, 48($9)
	sts $f6, 56($10)
	stt $f31, 64($30)
	ret
	.end formats_memory

	.globl formats_branch
	.ent formats_branch
formats_branch:
	br $31, 1f
	br $1, 1f
	bsr $26, formats_memory
1:	beq $2, 1b
	bne $3, 2f
	blt $4, 1b
	ble $5, 2f
	bgt $6, 1b
	bge $7, 2f
	blbc $8, 1b
	blbs $9, 2f
	fbeq $f1, 1b
	fbne $f2, 2f
	fblt $f3, 1b
	fble $f4, 2f
	fbgt $f5, 1b
	fbge $f6, 2f
2:	ret
	.end formats_branch

	.globl formats_operate
	.ent formats_operate
formats_operate:
	addl $1, $2, $3
	addl $1, 255, $3
	addq $4, $5, $6
	addq $4, 0, $6
	subl $31, $7, $8
	subq $31, 9, $8
	subq/v $9, $10, $11
	addq/v $9, 17, $11
	s4addq $1, $2, $3
	s8subl $1, 7, $3
	cmpeq $1, $2, $3
	cmpult $1, 200, $3
	cmple $4, $5, $6
	cmpbge $31, $7, $8
	and $1, $2, $3
	bic $1, 0xff, $3
	bis $31, $31, $31
	bis $31, $31, $4
	bis $31, $5, $6
	bis $7, $7, $8
	bis $31, 42, $9
	bis $1, $2, $3
	ornot $31, $4, $5
	ornot $1, $2, $3
	xor $1, 3, $2
	eqv $1, $2, $3
	cmoveq $1, $2, $3
	cmovlbs $1, 1, $3
	cmovgt $4, $5, $6
	sll $1, 3, $2
	srl $1, $2, $3
	sra $1, 63, $2
	extbl $1, $2, $3
	insql $1, 4, $3
	mskwh $1, $2, $3
	zapnot $1, 15, $2
	zap $1, $2, $3
	mull $1, $2, $3
	mulq/v $1, 100, $3
	umulh $1, $2, $3
	sextb $1, $2
	sextw $3, $4
	ctpop $5, $6
	ctlz $7, $8
	cttz $9, $10
	perr $1, $2, $3
	minub8 $1, $2, $3
	maxsw4 $1, 7, $3
	pklb $1, $2
	unpkbw $3, $4
	amask $1, $2
	amask 5, $2
	implver $3
	ret
	.end formats_operate

	.globl formats_float
	.ent formats_float
formats_float:
	addt $f1, $f2, $f3
	subs/su $f1, $f2, $f3
	mult/suid $f4, $f5, $f6
	divs/c $f7, $f8, $f9
	addt/m $f1, $f2, $f3
	subt/ud $f1, $f2, $f3
	subt $f31, $f2, $f3
	subs/sui $f31, $f4, $f5
	cmpteq $f1, $f2, $f3
	cmptlt/su $f1, $f2, $f3
	cmptun $f1, $f2, $f3
	cvttq/svc $f1, $f2
	cvttq/c $f3, $f4
	cvtqt $f5, $f6
	cvtqs/suid $f5, $f6
	cvtts/sui $f7, $f8
	cvtst/s $f7, $f8
	addf $f1, $f2, $f3
	subg/su $f1, $f2, $f3
	mulf/uc $f1, $f2, $f3
	divg/s $f1, $f2, $f3
	cmpgle $f1, $f2, $f3
	cvtgq/v $f1, $f2
	cvtqg $f3, $f4
	cvtdg/sc $f5, $f6
	subf $f31, $f1, $f2
	cpys $f31, $f31, $f31
	cpys $f31, $f31, $f1
	cpys $f31, $f2, $f3
	cpys $f4, $f4, $f5
	cpys $f1, $f2, $f3
	cpysn $f6, $f6, $f7
	cpysn $f1, $f2, $f3
	cpyse $f1, $f2, $f3
	mt_fpcr $f1
	mf_fpcr $f2
	fcmoveq $f1, $f2, $f3
	fcmovgt $f1, $f2, $f3
	cvtlq $f1, $f2
	cvtql $f3, $f4
	cvtql/sv $f5, $f6
	sqrtt $f1, $f2
	sqrts/suic $f3, $f4
	sqrtg/su $f5, $f6
	itoft $1, $f2
	itofs $3, $f4
	ftoit $f5, $6
	ftois $f7, $8
	ret
	.end formats_float

	.globl formats_pal
	.ent formats_pal
formats_pal:
	call_pal 0x83
	call_pal 0x86
	call_pal 0x80
	call_pal 0x81
	call_pal 0xaa
	call_pal 0x9e
	call_pal 0x9f
	call_pal 0x0
	call_pal 0x2
	call_pal 0x1234
	trapb
	excb
	mb
	wmb
	fetch ($1)
	fetch_m ($2)
	rpcc $3
	rc $4
	rs $5
	ecb ($6)
	wh64 ($7)
	.long 0x64000000 | (1 << 21) | 0x1f /* opcodes 19, 1b, 1d, 1e, 1f: pal19 ... */
	.long 0x6c000000 | 0x1234
	.long 0x74000000
	.long 0x7bfd8000
	.long 0x7c000001
	.long 0x04000000 /* opcodes 1 to 7 are reserved: .long */
	.long 0x1c000000 /* sextb without ra = zero */
	ret
	.end formats_pal

	.globl formats_jump
	.ent formats_jump
formats_jump:
	jmp $31, ($27), formats_pal
	jmp $31, ($1), 0
	jmp $2, ($3), formats_memory
	jsr $26, ($27), formats_branch
	jsr $26, ($27), 0
	jsr $23, ($27)
	ret $31, ($26), 1
	ret $31, ($26), 0
	ret $1, ($2), 0x3fff
	jsr_coroutine $26, ($27), 1
	.long 0x6bfb0004 /* jmp with a hint past the function */
	.long 0x6b5b7fff /* jsr with the most negative hint */
	ret
	.end formats_jump
