ALTER TABLE `leads` ADD `message` text;--> statement-breakpoint
ALTER TABLE `leads` ADD `language` text;