-- Drivers who registered more than 24 hours before this migration without confirming their phone,
-- connecting their delivery account and paying become leads (stage read live; docs/admin.md).
-- From now on the cron files each driver when their first 24 hours end (src/worker/admin/leads.ts).
INSERT INTO `leads` (`app`, `phone`, `name`, `email`, `source`, `user_id`, `created_at`)
SELECT u.`app`, u.`phone`, u.`name`, u.`email`, 'drop-off', u.`id`, u.`created_at` + 86400000
FROM `users` u
WHERE u.`is_admin` = 0
  AND u.`created_at` <= unixepoch('subsec') * 1000 - 86400000
  AND NOT (u.`phone_verified` = 1 AND u.`account_connected` = 1
    AND EXISTS (SELECT 1 FROM `payments` p WHERE p.`user_id` = u.`id` AND p.`status` = 'successful'))
ON CONFLICT DO NOTHING;
