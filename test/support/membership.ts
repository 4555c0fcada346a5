import type { Role } from "../../domain/shared/roles.ts";
import type { Client } from "./http.ts";
import { invitationToken } from "./outbox.ts";
import { signIn, type SignedIn } from "./users.ts";

/**
 * Signs a new user in and puts them into `teamId` with `role` the way people join: `inviter`
 * invites their email, they read the token from the mail and accept it.
 */
export async function joinTeam(http: Client, outbox: string, input: { teamId: string; inviter: SignedIn; role: Role }): Promise<SignedIn> {
  const user = await signIn(http, outbox);
  const invited = await http.post(`/v1/teams/${input.teamId}/invitations`, { email: user.email, role: input.role }, { token: input.inviter.token });
  if (invited.status !== 201) throw new Error(`invite answered ${invited.status}: ${JSON.stringify(invited.body)}`);
  const token = await invitationToken(outbox, user.email);
  const accepted = await http.post("/v1/invites/accept", { token }, { token: user.token });
  if (accepted.status !== 200) throw new Error(`accept answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  return user;
}
