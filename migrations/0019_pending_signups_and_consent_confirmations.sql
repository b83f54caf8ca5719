CREATE TABLE `consent_confirmations` (
	`phone` text PRIMARY KEY NOT NULL,
	`consent_event_id` integer NOT NULL,
	`language` text NOT NULL,
	`sent_at` integer NOT NULL,
	`confirmed_at` integer
);
--> statement-breakpoint
CREATE TABLE `pending_signups` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`referral_code` text,
	`invited_by` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- hand-written: registrations not yet confirmed (not an administrator's account, which has a
-- temporary password to change) hold their referral code and inviter as pending, and their link
-- invitation waits for the registrant's confirmation; marketing ticks nobody proved (the contact
-- form's, and those of registrations not yet confirmed) become 'unconfirmed' and allow nothing.
INSERT INTO `pending_signups` (`user_id`, `referral_code`, `invited_by`, `created_at`)
  SELECT `id`, `referral_code`, `invited_by`, `created_at` FROM `users` WHERE `phone_verified` = 0 AND `must_change_password` = 0 AND `is_admin` = 0;
--> statement-breakpoint
DELETE FROM `invitations` WHERE `via` = 'link' AND EXISTS (
  SELECT 1 FROM `pending_signups` `p` JOIN `users` `u` ON `u`.`id` = `p`.`user_id`
  WHERE `u`.`app` = `invitations`.`app` AND `u`.`phone` = `invitations`.`phone` AND `p`.`invited_by` = `invitations`.`inviter_id`
);
--> statement-breakpoint
UPDATE `users` SET `referral_code` = NULL, `invited_by` = NULL WHERE `id` IN (SELECT `user_id` FROM `pending_signups`);
--> statement-breakpoint
UPDATE `consent_events` SET `basis` = 'unconfirmed'
  WHERE `kind` = 'consent' AND `basis` = 'express'
    AND (`source` = 'contact_form' OR (`source` = 'registration' AND `user_id` IN (SELECT `user_id` FROM `pending_signups`)));
