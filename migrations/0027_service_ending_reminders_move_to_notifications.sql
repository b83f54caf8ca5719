-- The 24-hour reminder before service ends is a driver notification now (serviceEnding): a driver
-- the old reminder already texted for their current expiry is recorded as told, so the new one does
-- not text them again; then the column that remembered it goes.
INSERT OR IGNORE INTO `driver_notifications` (`user_id`, `event`, `channel`, `key`, `body`, `status`)
SELECT `id`, 'serviceEnding', 'sms', 'serviceEnding:' || `id` || ':' || `expiry_reminder_for` || ':sms', '', 'sent'
FROM `users` WHERE `expiry_reminder_for` IS NOT NULL AND `expiry_reminder_for` = `expiration_at`;--> statement-breakpoint
ALTER TABLE `users` DROP COLUMN `expiry_reminder_for`;
