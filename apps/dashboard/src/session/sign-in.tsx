import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, unwrap } from "../api/client.ts";
import { SESSION_KEY } from "../api/query-client.ts";

/**
 * Passwordless sign-in as the API does it: the address gets a 6-digit code by mail, and
 * verify-code answers with the `token` cookie (httpOnly: the page never sees the session).
 */
export function SignIn() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [step, setStep] = useState<"email" | "code">("email");

  const send = useMutation({
    mutationFn: (address: string) => unwrap(api.POST("/v1/auth/send-code", { body: { email: address } })),
    onSuccess: () => setStep("code"),
  });
  const verify = useMutation({
    mutationFn: () => unwrap(api.POST("/v1/auth/verify-code", { body: { email, code } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: SESSION_KEY }),
  });

  const sendCode = (event: FormEvent) => {
    event.preventDefault();
    send.mutate(email.trim());
  };
  const checkCode = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate();
  };
  const startOver = () => {
    setStep("email");
    setCode("");
    verify.reset();
  };

  return (
    <main className="sign-in" id="main">
      <h1>Event Analytics</h1>
      {step === "email" ? (
        <form onSubmit={sendCode} aria-describedby="email-help">
          <h2>Sign in</h2>
          <label htmlFor="email">Email</label>
          <input id="email" type="email" autoComplete="email" required autoFocus value={email} onChange={(event) => setEmail(event.target.value)} />
          <p id="email-help" className="hint">
            We mail you a 6-digit code. A new address gets an account and a team of its own.
          </p>
          {send.isError && <p role="alert" className="error">{send.error.message}</p>}
          <button type="submit" disabled={send.isPending}>
            {send.isPending ? "Sending…" : "Email me a code"}
          </button>
        </form>
      ) : (
        <form onSubmit={checkCode}>
          <h2>Enter your code</h2>
          <p className="hint">
            Sent to <strong>{email}</strong>. It expires in 10 minutes and works once.
          </p>
          <label htmlFor="code">6-digit code</label>
          <input
            id="code"
            autoComplete="one-time-code"
            inputMode="numeric"
            pattern="[0-9]{6}"
            maxLength={6}
            required
            autoFocus
            value={code}
            onChange={(event) => setCode(event.target.value.replace(/\D/g, ""))}
          />
          {verify.isError && <p role="alert" className="error">{verify.error.message}</p>}
          <button type="submit" disabled={verify.isPending || code.length !== 6}>
            {verify.isPending ? "Signing in…" : "Sign in"}
          </button>
          <button type="button" className="link" onClick={startOver}>
            Use another address
          </button>
        </form>
      )}
    </main>
  );
}
