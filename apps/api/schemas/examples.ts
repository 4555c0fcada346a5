/**
 * Ids and times the OpenAPI examples share, so an example of one route reads as the next step of
 * another's (the project created in one is the project of the app created in the next).
 */
export const EXAMPLE = {
  teamId: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b",
  projectId: "0b9a8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
  appId: "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
  userId: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
  keyId: "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b",
  sessionId: "7b8c9d0e-1f2a-4b3c-9d4e-5f6a7b8c9d0e",
  eventId: "019ab2c3-d4e5-7f60-8a7b-9c0d1e2f3a4b",
  at: "2026-11-25T12:00:00.000Z",
} as const;
