import { NotBuilt } from "../pages/not-built.tsx";

export function UsersPage() {
  return <NotBuilt title="Users" plan="Users with filters, and each user's properties, apps and recent events." routes={["GET /v1/app-users"]} />;
}
