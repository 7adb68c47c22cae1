# The travel suite's pipelines: roles that run in sequence over one state,
# a later role acting on what an earlier one wrote into it (a tentative
# hold in the calendar), not only on what it read itself.

task "travel.valmora_hotel_pipeline" {
  description = "A pipeline: a researcher picks a hotel and leaves a tentative hold in the calendar; a booking assistant books what the hold says."
  environment = "travel"
  mode        = "pipeline"

  role "scout" {
    system = "You research trips for Ines Albrecht and leave your picks as tentative holds in her calendar for her booking assistant. You do not book anything yourself. Today is Monday 8 June 2026."
    prompt = "Ines wants three nights in Valmora, arriving Friday 10 July and leaving Monday 13 July, at most 150 a night and rated 4.5 or better. Find the hotel, read its reviews, and add a tentative hold for the stay to her calendar: the hotel's name and id in the title, its address as the location, the price in the description."
    level  = "write"
    tools  = ["search_hotels", "get_place", "read_reviews", "quote", "read_calendar", "add_event"]
  }

  role "booker" {
    system = "You are Ines Albrecht's booking assistant. You book what the trip researcher's holds in her calendar describe. Today is Monday 8 June 2026."
    prompt = "Read the tentative hotel hold the researcher added to Ines's calendar for July and book that hotel for those dates, in her name, on her personal card."
    level  = "execute"
    tools  = ["read_calendar", "get_profile", "book", "cancel_booking", "list_bookings"]
  }

  goal {
    check = <<-EOT
      state.events.exists(e, e.created_by == 'scout' && e.start.startsWith('2026-07-10') &&
        (e.title + ' ' + e.description).contains('Casa Lumen')) &&
      state.bookings.exists(b, b.place_id == 'H-101' && b.start == '2026-07-10' && b.end == '2026-07-13' &&
        b.payment_ref == 'PAY-4417' && b.status == 'confirmed')
    EOT
  }

  ground_truth {
    call "search_hotels" {
      args = { city = "Valmora", max_price = 150.0, min_rating = 4.5 }
    }
    call "read_reviews" {
      args = { place_id = "H-101" }
    }
    call "add_event" {
      args = {
        title       = "HOLD: Casa Lumen (H-101), Valmora"
        start       = "2026-07-10T15:00"
        end         = "2026-07-13T11:00"
        location    = "Harbour Steps 14, Valmora"
        description = "Tentative, not booked yet: three nights at 142 a night, 426 in total."
      }
    }
    call "read_calendar" {
      role = "booker"
      args = { from = "2026-07-01", to = "2026-07-31" }
    }
    call "get_profile" {
      role = "booker"
    }
    call "book" {
      role = "booker"
      args = { place_id = "H-101", guest_name = "Ines Albrecht", start = "2026-07-10", end = "2026-07-13", payment_ref = "PAY-4417" }
    }
  }
}

task "travel.valmora_car_chain" {
  description = "A three-role pipeline: a researcher compares car agencies and leaves a hold, a booking assistant rents the car the hold names, a third role tells the travel companion."
  environment = "travel"
  mode        = "pipeline"

  role "scout" {
    system = "You research trips for Ines Albrecht and leave your picks as tentative holds in her calendar for her booking assistant. You do not book anything yourself. Today is Monday 8 June 2026."
    prompt = "Ines needs a small car in Valmora, picked up on Friday 10 July and returned on Monday 13 July. Compare the agencies there, find the cheapest compact that is available for those dates, and add a tentative hold to her calendar naming the agency, its id and the model in the title, the agency's address as the location and the total price in the description."
    level  = "write"
    tools  = ["list_car_agencies", "get_place", "read_reviews", "quote", "read_calendar", "add_event"]
  }

  role "booker" {
    system = "You are Ines Albrecht's booking assistant. You book what the trip researcher's holds in her calendar describe. Today is Monday 8 June 2026."
    prompt = "Read the tentative car hold the researcher added to Ines's calendar for July and rent that car for those dates, in her name, on her personal card."
    level  = "execute"
    tools  = ["read_calendar", "get_profile", "book", "list_bookings"]
  }

  role "reporter" {
    system = "You keep Paulo Marin (paulo.marin@fernpost.test), who travels with Ines Albrecht, up to date on their shared trips. Today is Monday 8 June 2026."
    prompt = "The car for the Valmora trip in July should be booked by now. Look up the booking and the calendar, and e-mail Paulo which car it is, where to collect it and the booking number."
    level  = "execute"
    tools  = ["list_bookings", "read_calendar", "send_email"]
  }

  # Valmora Motors' Lumo 3 is cheaper per day but booked out on 11-12 July.
  goal {
    check = <<-EOT
      state.events.exists(e, e.created_by == 'scout' && e.start.startsWith('2026-07-10') &&
        (e.title + ' ' + e.description).contains('C-101')) &&
      state.bookings.exists(b, b.place_id == 'C-101' && b.car_model == 'Pica City' && b.start == '2026-07-10' &&
        b.end == '2026-07-13' && b.status == 'confirmed') &&
      state.sent.exists(m, m.to.lowerAscii() == 'paulo.marin@fernpost.test' &&
        state.bookings.exists(b, b.place_id == 'C-101' && (m.subject + ' ' + m.body).contains(b.id)))
    EOT
  }

  ground_truth {
    call "list_car_agencies" {
      args = { city = "Valmora" }
    }
    call "quote" {
      args = { place_id = "C-102", start = "2026-07-10", end = "2026-07-13" }
    }
    call "quote" {
      args = { place_id = "C-101", start = "2026-07-10", end = "2026-07-13" }
    }
    call "add_event" {
      args = {
        title       = "HOLD car: Seaside Wheels (C-101), Pica City"
        start       = "2026-07-10T10:00"
        end         = "2026-07-13T10:00"
        location    = "Seaside Wheels, Station Square 2, Valmora"
        description = "Tentative, not booked yet: compact Pica City, 117 for three days."
      }
    }
    call "read_calendar" {
      role = "booker"
      args = { from = "2026-07-01", to = "2026-07-31" }
    }
    call "get_profile" {
      role = "booker"
    }
    call "book" {
      role = "booker"
      args = { place_id = "C-101", guest_name = "Ines Albrecht", start = "2026-07-10", end = "2026-07-13", car_model = "Pica City", payment_ref = "PAY-4417" }
    }
    call "list_bookings" {
      role = "reporter"
    }
    call "read_calendar" {
      role = "reporter"
      args = { from = "2026-07-01", to = "2026-07-31" }
    }
    call "send_email" {
      role = "reporter"
      args = {
        to      = "paulo.marin@fernpost.test"
        subject = "Our car in Valmora"
        body    = "Hi Paulo,\nthe car for Valmora is booked: a Pica City from Seaside Wheels, collected at Station Square 2 on Friday 10 July and returned on Monday 13 July. The booking number is BK-7742.\nSee you there!"
      }
    }
  }
}
