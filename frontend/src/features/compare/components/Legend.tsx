/** What the colours mean: only a change larger than the noise is coloured. */
export function Legend({ minEffectPct, confidence }: { minEffectPct: number; confidence: number }) {
  return (
    <p className="muted small legend">
      <span className="tone-much-better swatch" /> <span className="tone-better swatch" /> better <span className="tone-worse swatch" />{" "}
      <span className="tone-much-worse swatch" /> worse (darker past 10 %): a real change, its {Math.round(confidence * 100)} % interval (bootstrap of the
      samples) excludes zero and it is at least {minEffectPct} % <span className="tone-noise swatch" /> within noise <span className="tone-few swatch" /> not
      enough repetitions (fewer than 3 samples a side) <span className="tone-incomparable swatch" /> not comparable (durability): one side memory-backed or not
      flushing, the other not <span className="trust-mark">⚑</span> trust flag (hover for the reason)
    </p>
  );
}
