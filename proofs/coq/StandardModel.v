(* The one axiom tolproof trusts about binary32 arithmetic, proved here from
   Flocq: the standard model of rounding to nearest-even,

       |round(z) - z| <= 2^-24 |z| + 2^-150     for |z| <= largest float.

   oracles/common/proven/std_model.acsl states exactly this as the ACSL axiom
   Std_Model_Binary32 (over \round_float(\NearestEven, z)).

   Below the overflow threshold, IEEE binary32 round-to-nearest-even is
   Flocq's rounding in the format FLT_exp (-149) 24 with Znearest (negb (Z.even _)):
   that is what Flocq's own IEEE754 semantics uses for every finite result
   (Binary.Bplus_correct, Bmult_correct, Bfma_correct), so the statement
   over this rounding is the statement about the hardware operation. *)

From Coq Require Import Reals ZArith Lia Lra.
From Flocq Require Import Core Relative.

Open Scope R_scope.

Definition emin32 : Z := (-149)%Z.
Definition prec32 : Z := 24%Z.

(* Round to nearest, ties to even, in binary32 without overflow. *)
Definition round32 (z : R) : R :=
  round radix2 (FLT_exp emin32 prec32) (Znearest (fun n => negb (Z.even n))) z.

(* The largest finite binary32 value, (2 - 2^-23) 2^127. *)
Definition max32 : R := (2 - bpow radix2 (-23)) * bpow radix2 127.

Theorem std_model_binary32 :
  forall z : R, Rabs z <= max32 ->
  Rabs (round32 z - z) <= bpow radix2 (-24) * Rabs z + bpow radix2 (-150).
Proof.
  intros z _.
  destruct (error_N_FLT radix2 emin32 prec32 (eq_refl _)
              (fun n => negb (Z.even n)) z)
    as (eps & eta & Heps & Heta & _ & Hr).
  unfold round32; rewrite Hr.
  replace (z * (1 + eps) + eta - z) with (z * eps + eta) by ring.
  assert (E1 : / 2 * bpow radix2 (- prec32 + 1) = bpow radix2 (-24)).
  { unfold prec32.
    replace (- 24 + 1)%Z with (1 + -24)%Z by lia.
    rewrite bpow_plus, bpow_1; replace (IZR radix2) with 2 by reflexivity;
    set (b := bpow radix2 _); field. }
  assert (E2 : / 2 * bpow radix2 emin32 = bpow radix2 (-150)).
  { unfold emin32.
    replace (-149)%Z with (1 + -150)%Z by lia.
    rewrite bpow_plus, bpow_1; replace (IZR radix2) with 2 by reflexivity;
    set (b := bpow radix2 _); field. }
  rewrite E1 in Heps; rewrite E2 in Heta.
  eapply Rle_trans; [apply Rabs_triang|].
  rewrite Rabs_mult.
  apply Rplus_le_compat; [|exact Heta].
  rewrite Rmult_comm.
  apply Rmult_le_compat_r; [apply Rabs_pos|exact Heps].
Qed.

Print Assumptions std_model_binary32.

(* The same standard model for binary64 (oracles/common/proven/std_model64.acsl,
   lemma Std_Model_Binary64 over \round_double(\NearestEven, z), which WP
   proves from Why3's Float64.round_bound_ne; this is a cross-check):
       |round(z) - z| <= 2^-53 |z| + 2^-1075     for |z| <= largest double.
   Binary64 round-to-nearest-even below overflow is Flocq's rounding in
   FLT_exp (-1074) 53, as above. *)

Definition emin64 : Z := (-1074)%Z.
Definition prec64 : Z := 53%Z.

Definition round64 (z : R) : R :=
  round radix2 (FLT_exp emin64 prec64) (Znearest (fun n => negb (Z.even n))) z.

(* The largest finite binary64 value, (2 - 2^-52) 2^1023. *)
Definition max64 : R := (2 - bpow radix2 (-52)) * bpow radix2 1023.

Theorem std_model_binary64 :
  forall z : R, Rabs z <= max64 ->
  Rabs (round64 z - z) <= bpow radix2 (-53) * Rabs z + bpow radix2 (-1075).
Proof.
  intros z _.
  destruct (error_N_FLT radix2 emin64 prec64 (eq_refl _)
              (fun n => negb (Z.even n)) z)
    as (eps & eta & Heps & Heta & _ & Hr).
  unfold round64; rewrite Hr.
  replace (z * (1 + eps) + eta - z) with (z * eps + eta) by ring.
  assert (E1 : / 2 * bpow radix2 (- prec64 + 1) = bpow radix2 (-53)).
  { unfold prec64.
    replace (- 53 + 1)%Z with (1 + -53)%Z by lia.
    rewrite bpow_plus, bpow_1; replace (IZR radix2) with 2 by reflexivity;
    set (b := bpow radix2 _); field. }
  assert (E2 : / 2 * bpow radix2 emin64 = bpow radix2 (-1075)).
  { unfold emin64.
    replace (-1074)%Z with (1 + -1075)%Z by lia.
    rewrite bpow_plus, bpow_1; replace (IZR radix2) with 2 by reflexivity;
    set (b := bpow radix2 _); field. }
  rewrite E1 in Heps; rewrite E2 in Heta.
  eapply Rle_trans; [apply Rabs_triang|].
  rewrite Rabs_mult.
  apply Rplus_le_compat; [|exact Heta].
  rewrite Rmult_comm.
  apply Rmult_le_compat_r; [apply Rabs_pos|exact Heps].
Qed.

Print Assumptions std_model_binary64.
