// Account: change your password. The current password is checked as at sign-in (a wrong
// one counts towards the lockout); the new one is typed twice; saving it signs out every
// other session of yours.
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../../auth/password.ts";
import { CsrfField, Layout, Notice, type Viewer } from "./layout.tsx";

export interface AccountProps {
  nonce: string;
  viewer: Viewer;
  error?: string;
  /** Set after a change: how many other sessions were signed out. */
  changed?: { endedSessions: number };
}

export function AccountPage(props: AccountProps) {
  const ended = props.changed?.endedSessions ?? 0;
  return (
    <Layout title="Account" nonce={props.nonce} viewer={props.viewer} current="account">
      {props.changed && (
        <Notice kind="success">
          Your password was changed.{" "}
          {ended === 0 ? "You had no other sessions." : `${ended} other session${ended === 1 ? " was" : "s were"} signed out.`}
        </Notice>
      )}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <p>
        Signed in as <strong>{props.viewer.email}</strong> in the organization <code>{props.viewer.orgSlug}</code>.
      </p>
      <h2 id="change-password">Change password</h2>
      <form method="post" action="/dashboard/account/password" class="stack" aria-labelledby="change-password">
        <CsrfField token={props.viewer.csrfToken} />
        {/* For password managers: the account the new password belongs to. */}
        <input type="hidden" name="username" autocomplete="username" value={props.viewer.email} />
        <div>
          <label for="current-password">Current password</label>
          <input type="password" id="current-password" name="current" autocomplete="current-password" required />
        </div>
        <div>
          <label for="new-password">New password</label>
          <input
            type="password"
            id="new-password"
            name="password"
            autocomplete="new-password"
            minlength={MIN_PASSWORD_LENGTH}
            maxlength={MAX_PASSWORD_LENGTH}
            aria-describedby="new-password-rules"
            required
          />
          <p id="new-password-rules" class="muted">
            {MIN_PASSWORD_LENGTH} to {MAX_PASSWORD_LENGTH} characters. A passphrase of several words is easy to type and hard to guess.
          </p>
        </div>
        <div>
          <label for="confirm-password">New password again</label>
          <input type="password" id="confirm-password" name="confirm" autocomplete="new-password" maxlength={MAX_PASSWORD_LENGTH} required />
        </div>
        <div>
          <button type="submit">Change password</button>
        </div>
      </form>
      <p class="muted">Changing it signs you out everywhere else: other browsers and devices must sign in again with the new password.</p>
    </Layout>
  );
}
