import { Route, Routes } from "react-router";
import { NotFound } from "../pages/not-found.tsx";
import { UserDetail } from "./user-detail.tsx";
import { UsersList } from "./users-list.tsx";
import "./list-table.css";
import "./users.css";

/** `/users` lists a project's users; `/users/<user id>` shows one of them. */
export function UsersPage() {
  return (
    <Routes>
      <Route index element={<UsersList />} />
      <Route path=":userId" element={<UserDetail />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
