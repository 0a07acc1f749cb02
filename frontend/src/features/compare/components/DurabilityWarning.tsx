/** The banner when compared runs or groups do not give the same durability (seed 004). */
export function DurabilityWarning({ warning }: { warning: string | null | undefined }) {
  if (!warning) return null;
  return (
    <div className="banner warn" role="alert" data-testid="durability-warning">
      <strong>Durability differs.</strong> {warning}
    </div>
  );
}
