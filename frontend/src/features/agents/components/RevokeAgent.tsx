import { ConfirmButton } from "../../../components/ui/ConfirmButton";
import { WriteError } from "../../../components/ui/WriteError";
import { useRevokeAgent } from "../api/write-agents";

/** Revoke (admin, confirmed): its tokens stop working; its jobs go to other agents or are cancelled. */
export function RevokeAgent({ name }: { name: string }) {
  const revoke = useRevokeAgent();
  return (
    <span className="revoke">
      <ConfirmButton label="Revoke" confirm={`Really revoke ${name}`} pending={revoke.isPending} onConfirm={() => revoke.mutate(name)} />
      <WriteError error={revoke.error} scope="admin" action="Revoking an agent" />
    </span>
  );
}
