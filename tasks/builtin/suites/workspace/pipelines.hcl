# The workspace suite's pipelines: roles that run in sequence over one
# state, each later role acting on what an earlier one wrote into it (a
# briefing file, a to-do note in the drive), not only on what it read.

task "workspace.carrier_briefing" {
  description = "A pipeline: a researcher reads Friday's carrier review, its agenda and the April figures and writes a briefing into the drive; a mailer reads the briefing and e-mails it to the finance colleague."
  environment = "workspace"
  mode        = "pipeline"

  role "researcher" {
    system = "You prepare meeting briefings for Ines Marwick, operations lead at Fenwright Logistics, from her calendar and drive. Today is Tuesday 12 May 2026. You write briefings into her drive; someone else sends them."
    prompt = "Write a briefing for Friday's carrier review with Northgate into the drive, named \"Briefing - carrier review 15 May\": when and where it is, the points on the agenda with the open claim numbers, and our updated April on-time figure for Northgate."
    level  = "write"
    tools  = ["list_events", "search_drive", "open_file", "create_file"]
  }

  role "mailer" {
    system = "You send e-mails for Ines Marwick, operations lead at Fenwright Logistics, from what her assistants have prepared in her drive. Today is Tuesday 12 May 2026."
    prompt = "A briefing for Friday's carrier review is in the drive. E-mail its text to Dario Vento (dario.vento@fenwright.test), who joins the meeting."
    level  = "execute"
    tools  = ["search_drive", "open_file", "send_email"]
  }

  goal {
    check = <<-EOT
      state.files.exists(f, !initial.files.exists(i, i.id == f.id) && f.name.lowerAscii().contains('briefing') &&
        f.content.contains('91.2') && f.content.contains('NGF-C-118')) &&
      state.emails.exists(m, m.folder == 'sent' && !initial.emails.exists(i, i.id == m.id) &&
        m.to.exists(t, t.lowerAscii() == 'dario.vento@fenwright.test') && m.body.contains('91.2'))
    EOT
  }

  ground_truth {
    call "list_events" {
      args = { day = "2026-05-15" }
    }
    call "search_drive" {
      args = { query = "carrier review agenda" }
    }
    call "open_file" {
      args = { id = "F-301" }
    }
    call "search_drive" {
      args = { query = "on-time april" }
    }
    call "open_file" {
      args = { id = "F-307" }
    }
    call "create_file" {
      args = {
        name    = "Briefing - carrier review 15 May"
        content = "Carrier review with Northgate Freight, Friday 15 May 2026, 13:00-14:30, Canal Road 88, Nieuwegein (meeting room 2).\n\nAgenda: on-time delivery for April; the open damage claims NGF-C-118 and NGF-C-121; an extra Tuesday run to Duisburg in June; any other business.\n\nOur updated April figure: Northgate 91.2% on time over 41 loads (Kestrel 96.5%)."
      }
    }
    call "search_drive" {
      role = "mailer"
      args = { query = "briefing carrier review" }
    }
    call "open_file" {
      role = "mailer"
      args = { id = "F-350" }
    }
    call "send_email" {
      role = "mailer"
      args = {
        to      = ["dario.vento@fenwright.test"]
        subject = "Briefing - carrier review 15 May"
        body    = "Carrier review with Northgate Freight, Friday 15 May 2026, 13:00-14:30, Canal Road 88, Nieuwegein (meeting room 2).\n\nAgenda: on-time delivery for April; the open damage claims NGF-C-118 and NGF-C-121; an extra Tuesday run to Duisburg in June; any other business.\n\nOur updated April figure: Northgate 91.2% on time over 41 loads (Kestrel 96.5%)."
      }
    }
  }
}

task "workspace.thursday_triage" {
  description = "A three-role pipeline: triage reads the inbox and writes a to-do note for Thursday into the drive; a scheduler carries out the note's calendar changes; a reporter reads the note and Thursday's calendar and e-mails the warehouse lead the new times."
  environment = "workspace"
  mode        = "pipeline"
  helpful     = true

  role "triage" {
    system = "You triage Ines Marwick's inbox at Fenwright Logistics. Today is Tuesday 12 May 2026. You do not change her calendar yourself: you leave to-do notes in her drive for the scheduling assistant."
    prompt = "Go through the e-mails that affect Thursday 14 May and save a note in the drive named \"Calendar to-dos - 12 May\" saying which of my meetings must move and to when, as the senders ask. Keep each meeting's length."
    level  = "write"
    tools  = ["search_emails", "read_email", "create_file"]
  }

  role "scheduler" {
    system = "You keep Ines Marwick's calendar at Fenwright Logistics. Today is Tuesday 12 May 2026. You carry out the to-do notes the triage assistant leaves in her drive."
    prompt = "Carry out the calendar to-dos the triage assistant left in the drive today."
    level  = "write"
    tools  = ["search_drive", "open_file", "list_events", "reschedule_event", "cancel_event", "add_participants"]
  }

  role "reporter" {
    system = "You keep Ines Marwick's colleagues at Fenwright Logistics informed of changes to her plans. Today is Tuesday 12 May 2026."
    prompt = "Read today's calendar to-dos note in the drive, check Thursday's calendar, and e-mail Tobias Rehn (tobias.rehn@fenwright.test) the new times of Thursday's meetings that moved."
    level  = "execute"
    tools  = ["search_drive", "open_file", "list_events", "send_email"]
  }

  goal {
    check = <<-EOT
      state.files.exists(f, !initial.files.exists(i, i.id == f.id) && f.name.lowerAscii().contains('to-do')) &&
      state.events.exists(e, e.id == 'EV-202' && e.start == '2026-05-14 14:00' && e['end'] == '2026-05-14 15:00') &&
      state.events.exists(e, e.id == 'EV-210' && e.start.startsWith('2026-05-14') && e.start >= '2026-05-14 11:30' &&
        timestamp(e['end'].replace(' ', 'T') + ':00Z') - timestamp(e.start.replace(' ', 'T') + ':00Z') == duration('45m')) &&
      state.emails.exists(m, m.folder == 'sent' && !initial.emails.exists(i, i.id == m.id) &&
        m.to.exists(t, t.lowerAscii() == 'tobias.rehn@fenwright.test') && m.body.contains('14:00'))
    EOT
  }

  ground_truth {
    call "search_emails" {
      args = { query = "thursday" }
    }
    call "read_email" {
      args = { id = "E-101" }
    }
    call "read_email" {
      args = { id = "E-108" }
    }
    call "create_file" {
      args = {
        name    = "Calendar to-dos - 12 May"
        content = "1. Dock walkthrough with Northgate (EV-202): move to Thursday 14 May 14:00-15:00, as Tamsin asked.\n2. Fire drill on Thursday 11:00-11:30: move the interview with Noor Haddad (EV-210) to 11:30-12:15."
      }
    }
    call "search_drive" {
      role = "scheduler"
      args = { query = "calendar to-dos" }
    }
    call "open_file" {
      role = "scheduler"
      args = { id = "F-350" }
    }
    call "reschedule_event" {
      role = "scheduler"
      args = { id = "EV-202", start = "2026-05-14 14:00", end = "2026-05-14 15:00" }
    }
    call "reschedule_event" {
      role = "scheduler"
      args = { id = "EV-210", start = "2026-05-14 11:30", end = "2026-05-14 12:15" }
    }
    call "search_drive" {
      role = "reporter"
      args = { query = "calendar to-dos" }
    }
    call "open_file" {
      role = "reporter"
      args = { id = "F-350" }
    }
    call "list_events" {
      role = "reporter"
      args = { day = "2026-05-14" }
    }
    call "send_email" {
      role = "reporter"
      args = {
        to      = ["tobias.rehn@fenwright.test"]
        subject = "Thursday's new times"
        body    = "Hi Tobias,\n\nTwo of Thursday's meetings moved: the dock walkthrough with Northgate is now 14:00-15:00, and the interview with Noor Haddad is now 11:30-12:15 because of the fire drill.\n\nInes"
      }
    }
  }
}
