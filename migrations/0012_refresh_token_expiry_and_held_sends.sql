PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_auth_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer,
	`challenge` text NOT NULL,
	`expires_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`data` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_auth_challenges`("id", "user_id", "challenge", "expires_at", "attempts", "data") SELECT "id", "user_id", "challenge", "expires_at", "attempts", "data" FROM `auth_challenges`;--> statement-breakpoint
DROP TABLE `auth_challenges`;--> statement-breakpoint
ALTER TABLE `__new_auth_challenges` RENAME TO `auth_challenges`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `auth_challenges_user` ON `auth_challenges` (`user_id`);--> statement-breakpoint
ALTER TABLE `campaign_messages` ADD `held_until` integer;--> statement-breakpoint
ALTER TABLE `campaign_messages` ADD `retried_by` integer;--> statement-breakpoint
CREATE INDEX `campaign_messages_retried` ON `campaign_messages` (`campaign_id`,`status`,`retried_by`);--> statement-breakpoint
ALTER TABLE `refresh_tokens` ADD `session_expires_at` integer;