; LLVM 22 InstCombine: fpext(uitofp x to half) becomes uitofp x to float when x has at most 11
; significant bits, without checking that x fits half's range (largest finite 65504).
; Run: opt-22 -S -passes=instcombine llvm22-instcombine-fpext-half-overflow.ll
; Right: +inf for x & 1023 >= 4 (x << 14 >= 65536 rounds to inf in half). LLVM 22: the result is
; `uitofp nneg i32 %s to float`, 65536 for x = 4.
; x < 1024, so x << 14 has at most 10 significant bits (exact in half's precision) but reaches
; 16,760,832, far beyond half's largest finite value 65504: uitofp to half gives +inf for x >= 4.
define float @g(i32 %x) {
  %r = and i32 %x, 1023
  %s = shl i32 %r, 14
  %h = uitofp i32 %s to half
  %e = fpext half %h to float
  ret float %e
}
