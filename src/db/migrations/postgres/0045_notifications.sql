-- Notifications of a user (reference §10): what an admin or the auto-validation did to the user's
-- missions, stored in the transaction of that action and read through User.notifications.
-- `data` is the reference's JSON object, as text. Kept in lock-step with
-- ../sqlite/0045_notifications.sql.

CREATE TABLE notifications (
    id BIGSERIAL PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id),
    type TEXT NOT NULL CHECK (type IN ('mission_changes_warning', 'new_mission_by_admin', 'mission_auto_validation')),
    read BIGINT NOT NULL DEFAULT 0 CHECK (read IN (0, 1)),
    data TEXT NOT NULL,
    creation_time BIGINT NOT NULL
);
CREATE INDEX notifications_user ON notifications (user_id, creation_time);
