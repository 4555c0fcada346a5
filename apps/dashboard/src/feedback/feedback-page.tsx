import { Route, Routes } from "react-router";
import { NotFound } from "../pages/not-found.tsx";
import { FeedbackDetailPage } from "./feedback-detail.tsx";
import { FeedbackInbox } from "./feedback-inbox.tsx";
import "../users/list-table.css";
import "./feedback.css";

/** `/feedback` is a project's inbox; `/feedback/<id>` one feedback with its comments (notification mails link there). */
export function FeedbackPage() {
  return (
    <Routes>
      <Route index element={<FeedbackInbox />} />
      <Route path=":feedbackId" element={<FeedbackDetailPage />} />
      <Route path="*" element={<NotFound />} />
    </Routes>
  );
}
