ALTER TABLE `jobs` ADD `queued_ms` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `fetch_input_ms` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `process_ms` integer;--> statement-breakpoint
ALTER TABLE `jobs` ADD `store_output_ms` integer;