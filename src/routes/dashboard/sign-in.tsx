// The sign-in page. One message for an unknown email and a wrong password alike.
import { CsrfField, Layout, Notice } from "./layout.tsx";

export interface SignInProps {
  nonce: string;
  csrfToken: string;
  next: string;
  email?: string;
  error?: string;
  notice?: string;
}

export function SignInPage(props: SignInProps) {
  return (
    <Layout title="Sign in" nonce={props.nonce}>
      {props.notice && <Notice kind="success">{props.notice}</Notice>}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <form method="post" action="/dashboard/sign-in" class="stack">
        <CsrfField token={props.csrfToken} />
        <input type="hidden" name="next" value={props.next} />
        <div>
          <label for="email">Email</label>
          <input type="email" id="email" name="email" value={props.email ?? ""} autocomplete="username" required autofocus={!props.email} />
        </div>
        <div>
          <label for="password">Password</label>
          <input type="password" id="password" name="password" autocomplete="current-password" required autofocus={!!props.email} />
        </div>
        <div>
          <button type="submit">Sign in</button>
        </div>
      </form>
      <p class="muted">Accounts are created by an administrator (npm run admin -- create-user).</p>
    </Layout>
  );
}

export const WRONG_CREDENTIALS = "Wrong email or password.";

export function lockedMessage(lockedUntil: number, now: number): string {
  const minutes = Math.max(1, Math.ceil((lockedUntil - now) / 60_000));
  return `Too many failed sign-in attempts. Sign-in for this account is paused; try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
}
